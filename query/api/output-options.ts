import type * as z from 'zod';
import type { withPayload } from './schemas/fields.js';

/** Which payload keys a response carries: all, none, only some, or all but some (Qdrant's with_payload). */
export type PayloadSelector = boolean | { include: string[] } | { exclude: string[] };

export interface OutputOptions {
  withPayload: PayloadSelector;
  /** All of a point's vectors, none, or those of the names listed ("" is the unnamed vector). */
  withVector: boolean | string[];
}

/** with_payload (default true) and with_vector (default false), already checked by a body schema. */
export function outputOptions(body: { with_payload?: z.output<typeof withPayload> | null; with_vector?: boolean | string[] | null }): OutputOptions {
  const raw = body.with_payload ?? true;
  return { withPayload: Array.isArray(raw) ? { include: raw } : raw, withVector: body.with_vector ?? false };
}
