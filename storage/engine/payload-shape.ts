/**
 * Whether a JSON value nests objects and arrays more than `max` levels deep (the value itself
 * being level 1). Iterative, so any depth is measured without using the call stack.
 */
export function nestsDeeperThan(value: unknown, max: number): boolean {
  const stack: unknown[] = [];
  const depths: number[] = [];
  const push = (item: unknown, depth: number): void => {
    if (item === null || typeof item !== 'object') return;
    stack.push(item);
    depths.push(depth);
  };
  push(value, 1);
  while (stack.length > 0) {
    const v = stack.pop() as object;
    const depth = depths.pop()!;
    if (depth > max) return true;
    // Index and key loops: a for-of over a request's vector boxed each of its numbers.
    if (Array.isArray(v)) for (let i = 0; i < v.length; i++) push(v[i], depth + 1);
    // A typed array (a vector packed off the request thread, or the browser library's) holds numbers only.
    else if (ArrayBuffer.isView(v)) continue;
    else for (const key in v) if (Object.hasOwn(v, key)) push((v as Record<string, unknown>)[key], depth + 1);
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
