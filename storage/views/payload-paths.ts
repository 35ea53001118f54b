import type { Payload } from '../events/types.js';

export type Scalar = string | number | boolean;

const isScalar = (v: unknown): v is Scalar => typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';

/**
 * Every scalar under every dotted key path of a payload, looking through arrays as Qdrant does
 * (`tags` matches an element of an array; `a.b` reaches into objects, also inside arrays).
 * Iterative (an explicit stack), so a payload at the deepest nesting allowed cannot overflow the
 * call stack; only own keys are read.
 */
export function forEachIndexedValue(payload: Payload, visit: (path: string, value: Scalar) => void): void {
  const values: unknown[] = [];
  const paths: string[] = [];
  for (const key of Object.keys(payload)) {
    values.push(payload[key]);
    paths.push(key);
  }
  while (values.length > 0) {
    const value = values.pop();
    const path = paths.pop()!;
    if (isScalar(value)) visit(path, value);
    else if (Array.isArray(value)) {
      for (const item of value) {
        values.push(item);
        paths.push(path);
      }
    } else if (value !== null && typeof value === 'object') {
      for (const [key, inner] of Object.entries(value)) {
        values.push(inner);
        paths.push(`${path}.${key}`);
      }
    }
  }
}

/**
 * The values at a dotted path, arrays flattened; absent keys are left out. Keys are own
 * properties only: `constructor` or `__proto__` name a payload key, never Object.prototype's.
 * Iterative, like forEachIndexedValue.
 */
export function valuesAt(payload: Payload | null, path: readonly string[]): unknown[] {
  const out: unknown[] = [];
  if (!payload) return out;
  const values: unknown[] = [payload];
  const depths: number[] = [0];
  while (values.length > 0) {
    const value = values.pop();
    const depth = depths.pop()!;
    if (depth === path.length) {
      if (Array.isArray(value)) for (const item of value) out.push(item);
      else out.push(value);
    } else if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) {
        values.push(value[i]);
        depths.push(depth);
      }
    } else if (value !== null && typeof value === 'object' && Object.hasOwn(value, path[depth]!)) {
      values.push((value as Record<string, unknown>)[path[depth]!]);
      depths.push(depth + 1);
    }
  }
  return out;
}
