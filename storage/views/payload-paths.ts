import type { Payload } from '../events/types.js';

export type Scalar = string | number | boolean;

const isScalar = (v: unknown): v is Scalar => typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';

/**
 * Every scalar under every dotted key path of a payload, looking through arrays as Qdrant does
 * (`tags` matches an element of an array; `a.b` reaches into objects, also inside arrays).
 */
export function forEachIndexedValue(payload: Payload, visit: (path: string, value: Scalar) => void): void {
  const walk = (value: unknown, path: string): void => {
    if (isScalar(value)) visit(path, value);
    else if (Array.isArray(value)) for (const item of value) walk(item, path);
    else if (value !== null && typeof value === 'object') {
      for (const [key, inner] of Object.entries(value)) walk(inner, `${path}.${key}`);
    }
  };
  for (const [key, value] of Object.entries(payload)) walk(value, key);
}

/** The values at a dotted path, arrays flattened; undefined entries are left out. */
export function valuesAt(payload: Payload | null, path: readonly string[]): unknown[] {
  const out: unknown[] = [];
  const walk = (value: unknown, depth: number): void => {
    if (value === undefined) return;
    if (depth === path.length) {
      if (Array.isArray(value)) for (const item of value) out.push(item);
      else out.push(value);
      return;
    }
    if (Array.isArray(value)) for (const item of value) walk(item, depth);
    else if (value !== null && typeof value === 'object') walk((value as Record<string, unknown>)[path[depth]!], depth + 1);
  };
  if (payload) walk(payload, 0);
  return out;
}
