import type { Payload } from '../../../storage/events/types.js';

/**
 * The value order_by sorts a point by: a number at the key (a dotted path), or an RFC 3339
 * date-time string as its instant in milliseconds; null when the point has neither (it is left out).
 */
export function orderValue(payload: Payload | null | undefined, key: string): number | null {
  let v: unknown = payload;
  for (const part of key.split('.')) {
    if (v === null || typeof v !== 'object' || Array.isArray(v) || !Object.hasOwn(v, part)) return null;
    v = (v as Record<string, unknown>)[part];
  }
  if (Array.isArray(v)) v = v.find((x) => typeof x === 'number' || typeof x === 'string');
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  if (typeof v === 'string' && /^\d{4}-\d{2}-\d{2}/.test(v)) {
    const ms = Date.parse(v);
    return Number.isNaN(ms) ? null : ms;
  }
  return null;
}
