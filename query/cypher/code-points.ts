/**
 * Strings measured as Neo4j measures them: in Unicode code points, so an emoji or another
 * character beyond U+FFFF (two UTF-16 units in JS) counts once in size(), left(), right(),
 * substring() and char_length().
 */

const SURROGATE = /[\uD800-\uDFFF]/;

/** The number of code points in `s` (a lone surrogate counts as one). */
export function codePointLength(s: string): number {
  if (!SURROGATE.test(s)) return s.length;
  let n = 0;
  for (let i = 0; i < s.length; i++, n++) if (isPairAt(s, i)) i++;
  return n;
}

/** The UTF-16 offset of code point `index` in `s` (the string's length past its end). */
function offsetOf(s: string, index: number): number {
  let i = 0;
  for (let k = 0; k < index && i < s.length; k++) i += isPairAt(s, i) ? 2 : 1;
  return i;
}

const isPairAt = (s: string, i: number): boolean => {
  const hi = s.charCodeAt(i);
  if (hi < 0xd800 || hi > 0xdbff) return false;
  const lo = s.charCodeAt(i + 1);
  return lo >= 0xdc00 && lo <= 0xdfff;
};

/** The code points of `s` from `start` (inclusive) to `end` (exclusive, or to the end). */
export function codePointSlice(s: string, start: number, end?: number): string {
  if (!SURROGATE.test(s)) return s.slice(start, end);
  const from = offsetOf(s, start);
  return end === undefined ? s.slice(from) : s.slice(from, from + offsetOf(s.slice(from), end - start));
}
