/**
 * Point ids, as in Qdrant: an unsigned integer up to 2^53-1, or a UUID. A UUID travels as its
 * canonical string (lowercase, hyphenated: 8-4-4-4-12) and is stored as 16 bytes. The canonical
 * string sorts like the bytes, so ordering compares strings; integers sort before every UUID.
 */
export type PointId = number | string;

export const UUID_BYTES = 16;

const HYPHENATED = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
const SIMPLE = /^[0-9a-fA-F]{32}$/;
const HEX = '0123456789abcdef';

export function isUuid(id: PointId): id is string {
  return typeof id === 'string';
}

/** The canonical form of a UUID written hyphenated or as 32 hex digits (any case), or null. */
export function canonicalUuid(text: string): string | null {
  if (HYPHENATED.test(text)) return text.toLowerCase();
  if (!SIMPLE.test(text)) return null;
  const t = text.toLowerCase();
  return `${t.slice(0, 8)}-${t.slice(8, 12)}-${t.slice(12, 16)}-${t.slice(16, 20)}-${t.slice(20)}`;
}

/** Integers first (ascending), then UUIDs by their bytes. */
export function comparePointIds(a: PointId, b: PointId): number {
  if (typeof a === 'number') return typeof b === 'number' ? a - b : -1;
  if (typeof b === 'number') return 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

function nibble(code: number): number {
  return code <= 57 ? code - 48 : code - 87;
}

/** Writes a canonical UUID's 16 bytes at `at`. */
export function uuidIntoBytes(uuid: string, out: Uint8Array, at = 0): void {
  let k = at;
  for (let i = 0; i < uuid.length; i++) {
    if (uuid.charCodeAt(i) === 45) continue;
    out[k++] = (nibble(uuid.charCodeAt(i)) << 4) | nibble(uuid.charCodeAt(++i));
  }
}

/** The canonical UUID held in 16 bytes at `at`. */
export function uuidFromBytes(bytes: Uint8Array, at = 0): string {
  let s = '';
  for (let i = 0; i < UUID_BYTES; i++) {
    if (i === 4 || i === 6 || i === 8 || i === 10) s += '-';
    const b = bytes[at + i]!;
    s += HEX[b >> 4]! + HEX[b & 15]!;
  }
  return s;
}

/** Writes a canonical UUID as four big-endian 32-bit words (the hash tables' key form). */
export function uuidIntoWords(uuid: string, out: Uint32Array, at = 0): void {
  let w = 0;
  let n = 0;
  let k = at;
  for (let i = 0; i < uuid.length; i++) {
    const c = uuid.charCodeAt(i);
    if (c === 45) continue;
    w = ((w << 4) | nibble(c)) >>> 0;
    if (++n === 8) {
      out[k++] = w;
      w = 0;
      n = 0;
    }
  }
}

/** The canonical UUID held in four words at `at`. */
export function uuidFromWords(words: Uint32Array, at = 0): string {
  let s = '';
  for (let i = 0; i < 4; i++) {
    const hex = words[at + i]!.toString(16).padStart(8, '0');
    s += i === 1 || i === 2 ? `-${hex.slice(0, 4)}-${hex.slice(4)}` : hex;
  }
  return s;
}
