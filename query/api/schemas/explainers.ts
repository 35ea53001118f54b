import type * as z from 'zod';

/**
 * Says what is wrong with `value` at `where` in words a person can act on, or answers
 * undefined to leave it to the generic message. May throw its own 400 instead.
 */
export type Explainer = (where: string, value: unknown) => string | undefined;

const explainers = new WeakMap<z.ZodType, Explainer>();

/** Gives `schema` a message of its own for values it refuses (the generic one is "<where> must be <description>, got <value>"). */
export function explainedBy<T extends z.ZodType>(schema: T, explain: Explainer): T {
  explainers.set(schema, explain);
  return schema;
}

export const explainerOf = (schema: z.ZodType): Explainer | undefined => explainers.get(schema);

/** A refused value quoted in a message, cut short so a huge body does not come back whole. */
export function quote(value: unknown): string {
  if (typeof value === 'number' && !Number.isFinite(value)) return String(value);
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    // nested too deep to write out
    text = Array.isArray(value) ? '[...]' : '{...}';
  }
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}
