import type { PointId } from './types.js';

/** A point id as the API wants it: a number when it is one, else the text (a UUID). */
export const idOf = (text: string): PointId => (/^\d+$/.test(text.trim()) ? Number(text.trim()) : text.trim());

/** A vector typed as `0.1, 0.2, 0.3` or pasted as JSON `[0.1, 0.2, 0.3]`. */
export function vectorOf(text: string): number[] {
  const wrong = new Error('the vector must be numbers, e.g. [0.1, 0.2, 0.3]');
  let vector: unknown;
  try {
    vector = JSON.parse(text.trim().startsWith('[') ? text : `[${text}]`);
  } catch {
    throw wrong;
  }
  if (!Array.isArray(vector) || vector.length === 0 || !vector.every((x) => typeof x === 'number')) throw wrong;
  return vector as number[];
}
