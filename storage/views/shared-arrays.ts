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
  new (buffer: ArrayBufferLike): T;
  readonly BYTES_PER_ELEMENT: number;
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
