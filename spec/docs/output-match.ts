import type { ShownOutput } from './readme-examples.js';

/** How many decimals a number has when written the shortest way (0.967 → 3, 2 → 0). */
function decimals(n: number): number {
  const text = String(n);
  if (text.includes('e')) return 20; // shown as 1e-7: compare to toFixed's most digits
  const dot = text.indexOf('.');
  return dot < 0 ? 0 : text.length - dot - 1;
}

/**
 * Where the shown JSON and the actual JSON differ, or null. The README may leave keys out of an
 * object (`time`, which changes on every call) and may round numbers: a shown fraction matches
 * when the actual number, rounded to the shown number of decimals, equals it; a shown integer
 * must be exact. Arrays must have the
 * shown length; strings, booleans and null must be equal.
 */
export function jsonMismatch(shown: unknown, actual: unknown, path = '$'): string | null {
  if (typeof shown === 'number') {
    if (typeof actual !== 'number') return `${path}: expected the number ${shown}, got ${JSON.stringify(actual)}`;
    const matches = Number.isInteger(shown) ? actual === shown : Number(actual.toFixed(decimals(shown))) === shown;
    return matches ? null : `${path}: expected ${shown}, got ${actual}`;
  }
  if (Array.isArray(shown)) {
    if (!Array.isArray(actual)) return `${path}: expected an array, got ${JSON.stringify(actual)}`;
    if (actual.length !== shown.length) return `${path}: expected ${shown.length} elements, got ${actual.length}: ${JSON.stringify(actual)}`;
    for (let i = 0; i < shown.length; i++) {
      const mismatch = jsonMismatch(shown[i], actual[i], `${path}[${i}]`);
      if (mismatch) return mismatch;
    }
    return null;
  }
  if (shown !== null && typeof shown === 'object') {
    if (actual === null || typeof actual !== 'object' || Array.isArray(actual)) return `${path}: expected an object, got ${JSON.stringify(actual)}`;
    for (const [key, value] of Object.entries(shown)) {
      if (!(key in actual)) return `${path}: the key "${key}" is missing from ${JSON.stringify(actual)}`;
      const mismatch = jsonMismatch(value, (actual as Record<string, unknown>)[key], `${path}.${key}`);
      if (mismatch) return mismatch;
    }
    return null;
  }
  return shown === actual ? null : `${path}: expected ${JSON.stringify(shown)}, got ${JSON.stringify(actual)}`;
}

function trimLines(text: string): string {
  return text.split('\n').map((line) => line.trimEnd()).join('\n').trim();
}

/** Where an example's stdout differs from the output the README shows for it, or null. */
export function outputMismatch(shown: ShownOutput, stdout: string): string | null {
  if (shown.kind === 'text') {
    const [want, got] = [trimLines(shown.text), trimLines(stdout)];
    return want === got ? null : `expected the output\n${want}\ngot\n${got}`;
  }
  let actual: unknown;
  try {
    actual = JSON.parse(stdout);
  } catch {
    return `the example did not print one JSON value: ${stdout}`;
  }
  return jsonMismatch(JSON.parse(shown.text), actual);
}
