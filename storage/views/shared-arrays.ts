/**
 * Typed arrays that search workers can read: a store moves its arrays (and its graph's) onto
 * SharedArrayBuffers when its vectors move into a WebAssembly memory, the point from which
 * workers search it. Small stores, most of a database of many collections, stay on plain
 * buffers, which cost less to make. Platforms without SharedArrayBuffer (a browser page that is
 * not cross-origin isolated) keep every array plain. How readers stay consistent is in
 * hnsw-sharing.md.
 */
export const CAN_SHARE = typeof SharedArrayBuffer === 'function';

type Typed = Int8Array | Uint8Array | Int32Array | Uint32Array | Float64Array;

interface TypedConstructor<T extends Typed> {
  new (buffer: ArrayBufferLike, byteOffset?: number, length?: number): T;
  readonly BYTES_PER_ELEMENT: number;
}

/** A growable SharedArrayBuffer (ES2024; Node 20 has it, this project's lib setting does not name it). */
interface GrowableShared extends SharedArrayBuffer {
  readonly growable: boolean;
  readonly maxByteLength: number;
  grow(byteLength: number): void;
}

const GROWABLE = CAN_SHARE && 'grow' in SharedArrayBuffer.prototype;
/** The largest growable buffer V8 makes (Node 20); an array that outgrows it is copied into a plain shared one. */
const MOST_GROWABLE_BYTES = 2 ** 32;

/**
 * Slots a store's or graph's growable arrays reserve room for when made: sixteen times its
 * capacity, and at least 4 Mi (about 720 MB of address space a graph and its store, no memory),
 * so that they are copied at most once in sixteen times the size.
 */
export function slotsToReserve(capacity: number): number {
  return Math.max(16 * capacity, 2 ** 22);
}

export function isShared(a: Typed): boolean {
  return CAN_SHARE && a.buffer instanceof SharedArrayBuffer;
}

/** A zeroed array of `length`, on a shared buffer when `shared` and the platform can. */
export function typedArray<T extends Typed>(make: TypedConstructor<T>, length: number, shared: boolean): T {
  const bytes = length * make.BYTES_PER_ELEMENT;
  return new make(shared && CAN_SHARE ? new SharedArrayBuffer(bytes) : new ArrayBuffer(bytes));
}

/** A copy of `old` of `length` (zeros after it) on a new buffer, shared if `shared` (default: as `old` is); the old one stays readable, frozen, for readers still on it. */
export function grownCopy<T extends Typed>(old: T, length: number, shared = isShared(old)): T {
  const next = typedArray(old.constructor as TypedConstructor<T>, length, shared);
  next.set(old as never);
  return next;
}

/**
 * `old` given room for `length` (zeros after it), for arrays whose readers on other threads may
 * see later writes: when `old` is on a growable shared buffer with room, the buffer grows in
 * place (pages are committed, nothing is copied; a graph of a million nodes copied its layer-0
 * links in about 90 ms, every request waiting) and the answer is a new view of the same memory.
 * Otherwise it is a copy, shared if `shared`, on a growable buffer that reserves address space
 * (not memory) for `reserve` elements, at most 4 GiB. The answer is always a fixed-length view:
 * V8 reads those as fast as any array, and length-tracking ones about four times slower.
 */
export function grownInPlace<T extends Typed>(old: T, length: number, reserve: number, shared = isShared(old)): T {
  const make = old.constructor as TypedConstructor<T>;
  const bytes = length * make.BYTES_PER_ELEMENT;
  const buffer = old.buffer as GrowableShared;
  if (shared && GROWABLE && buffer.growable && old.byteOffset === 0 && bytes <= buffer.maxByteLength) {
    const had = buffer.byteLength / make.BYTES_PER_ELEMENT;
    if (bytes > buffer.byteLength) buffer.grow(bytes);
    // Past `old` and within what the buffer had: words a shorter view left behind, cleared as a copy would have them.
    const view = new make(buffer, 0, length);
    view.fill(0, old.length, Math.min(length, had));
    return view;
  }
  if (!shared || !GROWABLE || bytes > MOST_GROWABLE_BYTES) return grownCopy(old, length, shared);
  const most = Math.min(MOST_GROWABLE_BYTES, Math.max(bytes, reserve * make.BYTES_PER_ELEMENT));
  const next = new make(new (SharedArrayBuffer as unknown as new (bytes: number, options: { maxByteLength: number }) => SharedArrayBuffer)(bytes, { maxByteLength: most }), 0, length);
  next.set(old as never);
  return next;
}
