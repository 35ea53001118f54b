/**
 * Whether a JSON value nests objects and arrays more than `max` levels deep (the value itself
 * being level 1). Iterative, so any depth is measured without using the call stack.
 */
export function nestsDeeperThan(value: unknown, max: number): boolean {
  const stack: unknown[] = [value];
  const depths: number[] = [1];
  while (stack.length > 0) {
    const v = stack.pop();
    const depth = depths.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (depth > max) return true;
    const items = Array.isArray(v) ? v : Object.values(v);
    for (const item of items) {
      if (item !== null && typeof item === 'object') {
        stack.push(item);
        depths.push(depth + 1);
      }
    }
  }
  return false;
}

/** Bytes of a string encoded as UTF-8 (a lone surrogate counts as U+FFFD's three). */
export function utf8Length(s: string): number {
  let bytes = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) continue;
    if (c < 0x800) bytes += 1;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      bytes += 2;
      i++;
    } else bytes += 2;
  }
  return bytes;
}
