import type { ByteWriter } from './byte-writer.js';

/**
 * Work done a piece at a time: the generator yields between pieces, where whoever runs it may
 * let other work in (the request thread's next requests) before going on.
 */
export type Sliced<T = void> = Generator<void, T, undefined>;

/**
 * State frozen at one moment and written out later, a piece at a time: what a view's `capture()`
 * answers. Writing it gives the bytes the view held when it was captured, whatever was applied
 * since (snapshots are encoded over many event-loop turns; see storage/snapshot/sliced-encoding.md).
 */
export type Captured = (w: ByteWriter) => Sliced;

/**
 * Points of a large upsert checked or encoded between two yields, on the request thread; an
 * upsert of more than this many is checked and encoded in slices (Engine.submitInSlices).
 */
export const UPSERT_POINTS_A_STEP = 64;

/** Raw bytes handed to a writer between yields: about a millisecond of checksumming and writing. */
export const RAW_PIECE_BYTES = 256 * 1024;

/** Runs sliced work to its end, now; answers what it answers. */
export function runNow<T>(work: Sliced<T>): T {
  for (;;) {
    const step = work.next();
    if (step.done) return step.value;
  }
}

// setImmediate exists in Node only; browsers fall back to setTimeout.
const immediate = (globalThis as { setImmediate?: (task: () => void) => void }).setImmediate;

/** Resolves after the event loop has had a turn: pending I/O, timers and requests run first. */
export const nextTurn = (): Promise<void> => new Promise((resolve) => (immediate ? immediate(() => resolve()) : setTimeout(resolve, 0)));

/**
 * Runs sliced work to its end, awaiting `pause` (by default a turn of the event loop) each time
 * `sliceMs` has passed; answers what it answers.
 */
export async function runInSlices<T>(work: Sliced<T>, sliceMs: number, pause: () => Promise<void> = nextTurn): Promise<T> {
  let deadline = performance.now() + sliceMs;
  for (;;) {
    const step = work.next();
    if (step.done) return step.value;
    if (performance.now() < deadline) continue;
    await pause();
    deadline = performance.now() + sliceMs;
  }
}

type Typed = Float64Array | Float32Array | Int32Array | Uint32Array | Int8Array | Uint8Array;

/** Writes elements [from, to) of a typed array as raw little-endian bytes (as writeRaw does), yielding between pieces. */
export function* rawPieces(w: ByteWriter, a: Typed, from: number, to: number): Sliced {
  const size = a.BYTES_PER_ELEMENT;
  const per = Math.max(1, Math.floor(RAW_PIECE_BYTES / size));
  for (let at = from; at < to; at += per) {
    const end = Math.min(to, at + per);
    w.bytes(new Uint8Array(a.buffer, a.byteOffset + at * size, (end - at) * size));
    yield;
  }
}
