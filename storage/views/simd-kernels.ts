import { CAN_SHARE } from './shared-arrays.js';

/**
 * Distance kernels in WebAssembly SIMD (f32x4), assembled here from opcodes, so no toolchain or
 * binary file is needed. Both take two byte offsets into the module's memory and a dimension,
 * and return a float32: l2 the squared Euclidean distance, dot the inner product, l1 the
 * Manhattan distance (the sum of absolute differences).
 * l2Many, dotMany and l1Many compare the vector at `a` with n rows, `base + slot * stride` for each u32
 * slot at `slots`, writing the results as float64 at `out` (manyBody): a walk's fresh neighbours
 * in one call from JavaScript instead of one each, their rows read from memory together.
 */
export interface Kernels {
  l2(a: number, b: number, dim: number): number;
  dot(a: number, b: number, dim: number): number;
  l2Many(a: number, slots: number, n: number, out: number, base: number, stride: number, dim: number): void;
  dotMany(a: number, slots: number, n: number, out: number, base: number, stride: number, dim: number): void;
  l1(a: number, b: number, dim: number): number;
  l1Many(a: number, slots: number, n: number, out: number, base: number, stride: number, dim: number): void;
}

const I32 = 0x7f;
const F32 = 0x7d;
const V128 = 0x7b;
const SIMD = 0xfd;
const OP = {
  block: 0x02, loop: 0x03, br: 0x0c, brIf: 0x0d, end: 0x0b,
  localGet: 0x20, localSet: 0x21, localTee: 0x22,
  i32Const: 0x41, i32Add: 0x6a, i32Mul: 0x6c, i32And: 0x71, i32Shl: 0x74, i32GeU: 0x4f,
  i32Load: 0x28, f32Load: 0x2a, f32Store: 0x38, f32Abs: 0x8b, f32Add: 0x92, f32Sub: 0x93, f32Mul: 0x94, call: 0x10, drop: 0x1a,
  f64Store: 0x39, f64ConvertI32S: 0xb7, f64PromoteF32: 0xbb,
} as const;
// SIMD sub-opcodes, LEB128-encoded after the 0xfd prefix.
const V128_LOAD = [0x00];
const V128_CONST = [0x0c];
const F32X4_EXTRACT = [0x1f];
const F32X4_ABS = [0xe0, 0x01];
const F32X4_ADD = [0xe4, 0x01];
const F32X4_SUB = [0xe5, 0x01];
const F32X4_MUL = [0xe6, 0x01];

/** The module encoders below are shared with int8-kernels.ts. */
export function uleb(n: number): number[] {
  const out: number[] = [];
  do {
    let byte = n & 0x7f;
    n >>>= 7;
    if (n !== 0) byte |= 0x80;
    out.push(byte);
  } while (n !== 0);
  return out;
}

export function sleb(n: number): number[] {
  const out: number[] = [];
  for (;;) {
    const byte = n & 0x7f;
    n >>= 7;
    if ((n === 0 && (byte & 0x40) === 0) || (n === -1 && (byte & 0x40) !== 0)) {
      out.push(byte);
      return out;
    }
    out.push(byte | 0x80);
  }
}

export const str = (s: string): number[] => [...uleb(s.length), ...Array.from(s, (c) => c.charCodeAt(0))];
export const section = (id: number, body: number[]): number[] => [id, ...uleb(body.length), ...body];
export const vec = (items: number[][]): number[] => [...uleb(items.length), ...items.flat()];

/** What a float kernel adds up over the pairs of values: squared differences, products or absolute differences. */
type FloatKernel = 'l2' | 'dot' | 'l1';

/**
 * Locals: 0 a, 1 b, 2 dim (params); 3 end16, 4 end4, 5 end (i32); 6-9 acc0-acc3, 10 d (v128);
 * 11 sum, 12 t (f32). Sixteen lanes at a time up to end16, in four accumulators so that their
 * additions do not wait on one another, then four at a time into acc0 up to end4; the
 * accumulators are summed (acc0 + acc1) + (acc2 + acc3), their lanes 0+1+2+3, then a scalar
 * tail up to end. scalar-kernels.ts does the same arithmetic in the same order.
 */
function kernelBody(kind: FloatKernel): number[] {
  const get = (i: number) => [OP.localGet, i];
  const set = (i: number) => [OP.localSet, i];
  const advance = (i: number, bytes: number) => [...get(i), OP.i32Const, ...sleb(bytes), OP.i32Add, ...set(i)];
  const lanes = {
    l2: [SIMD, ...F32X4_SUB, OP.localTee, 10, ...get(10), SIMD, ...F32X4_MUL],
    dot: [SIMD, ...F32X4_MUL],
    l1: [SIMD, ...F32X4_SUB, SIMD, ...F32X4_ABS],
  }[kind];
  const scalar = { l2: [OP.f32Sub, OP.localTee, 12, ...get(12), OP.f32Mul], dot: [OP.f32Mul], l1: [OP.f32Sub, OP.f32Abs] }[kind];
  /** Adds the block at byte `offset` past a and b into accumulator `acc`. */
  const block = (offset: number, acc: number) => [
    ...get(0), SIMD, ...V128_LOAD, 0, ...uleb(offset), ...get(1), SIMD, ...V128_LOAD, 0, ...uleb(offset), ...lanes,
    ...get(acc), SIMD, ...F32X4_ADD, ...set(acc),
  ];
  const endAt = (mask: number, local: number) => [...get(0), ...get(2), OP.i32Const, ...sleb(mask), OP.i32And, OP.i32Const, 2, OP.i32Shl, OP.i32Add, ...set(local)];
  const zero = [SIMD, ...V128_CONST, ...new Array<number>(16).fill(0)];
  const code = [
    ...endAt(-1, 5), ...endAt(-4, 4), ...endAt(-16, 3),
    ...zero, ...set(6), ...zero, ...set(7), ...zero, ...set(8), ...zero, ...set(9),
    OP.block, 0x40, OP.loop, 0x40,
    ...get(0), ...get(3), OP.i32GeU, OP.brIf, 1,
    ...block(0, 6), ...block(16, 7), ...block(32, 8), ...block(48, 9),
    ...advance(0, 64), ...advance(1, 64),
    OP.br, 0, OP.end, OP.end,
    OP.block, 0x40, OP.loop, 0x40,
    ...get(0), ...get(4), OP.i32GeU, OP.brIf, 1,
    ...block(0, 6),
    ...advance(0, 16), ...advance(1, 16),
    OP.br, 0, OP.end, OP.end,
    ...get(6), ...get(7), SIMD, ...F32X4_ADD, ...get(8), ...get(9), SIMD, ...F32X4_ADD, SIMD, ...F32X4_ADD, ...set(6),
    ...get(6), SIMD, ...F32X4_EXTRACT, 0, ...get(6), SIMD, ...F32X4_EXTRACT, 1, OP.f32Add,
    ...get(6), SIMD, ...F32X4_EXTRACT, 2, OP.f32Add, ...get(6), SIMD, ...F32X4_EXTRACT, 3, OP.f32Add, ...set(11),
    OP.block, 0x40, OP.loop, 0x40,
    ...get(0), ...get(5), OP.i32GeU, OP.brIf, 1,
    ...get(0), OP.f32Load, 2, 0, ...get(1), OP.f32Load, 2, 0, ...scalar, ...get(11), OP.f32Add, ...set(11),
    ...advance(0, 4), ...advance(1, 4),
    OP.br, 0, OP.end, OP.end,
    ...get(11), OP.end,
  ];
  const locals = vec([[3, I32], [5, V128], [2, F32]]);
  const body = [...locals, ...code];
  return [...uleb(body.length), ...body];
}

/**
 * The body of a batched kernel: compares the row at `a` with the rows of n slots, each
 * `base + slot * stride`, by calling function `kernel` (a, row, len), and writes each result as a
 * float64 at `out` (from a float32, or exactly from an i32 when `intResult`). One word every 64
 * bytes of every row (a cache line's worth) is read first, so that the rows come from memory
 * together rather than one by one (what hnswlib's prefetches do; WebAssembly has no prefetch). Locals: 0 a, 1 slots, 2 n, 3 out,
 * 4 base, 5 stride, 6 len (params); 7 end of the slots, 8 a line, 9 a row's end, 10 a slot cursor.
 */
export function manyBody(kernel: number, intResult: boolean): number[] {
  const get = (i: number) => [OP.localGet, i];
  const set = (i: number) => [OP.localSet, i];
  const advance = (i: number, bytes: number) => [...get(i), OP.i32Const, bytes, OP.i32Add, ...set(i)];
  const rowAt = (slotAt: number) => [...get(4), ...get(slotAt), OP.i32Load, 2, 0, ...get(5), OP.i32Mul, OP.i32Add];
  const code = [
    ...get(1), ...get(2), OP.i32Const, 2, OP.i32Shl, OP.i32Add, ...set(7),
    ...get(1), ...set(10),
    OP.block, 0x40, OP.loop, 0x40,
    ...get(10), ...get(7), OP.i32GeU, OP.brIf, 1,
    ...rowAt(10), OP.localTee, 8, ...get(5), OP.i32Add, ...set(9),
    OP.block, 0x40, OP.loop, 0x40,
    ...get(8), ...get(9), OP.i32GeU, OP.brIf, 1,
    ...get(8), OP.i32Load, 2, 0, OP.drop,
    ...get(8), OP.i32Const, ...sleb(64), OP.i32Add, ...set(8),
    OP.br, 0, OP.end, OP.end,
    ...advance(10, 4),
    OP.br, 0, OP.end, OP.end,
    OP.block, 0x40, OP.loop, 0x40,
    ...get(1), ...get(7), OP.i32GeU, OP.brIf, 1,
    ...get(3),
    ...get(0), ...rowAt(1), ...get(6), OP.call, kernel,
    intResult ? OP.f64ConvertI32S : OP.f64PromoteF32, OP.f64Store, 3, 0,
    ...advance(1, 4), ...advance(3, 8),
    OP.br, 0, OP.end, OP.end,
    OP.end,
  ];
  const body = [...vec([[4, I32]]), ...code];
  return [...uleb(body.length), ...body];
}

/** The type of a batched kernel: (a, slots, n, out, base, stride, len) -> (). */
export const MANY_TYPE = [0x60, 7, I32, I32, I32, I32, I32, I32, I32, 0];

/** The limits of an imported memory: a shared memory must be imported as shared (flag 3, with its maximum). */
export const memoryLimits = (shared: boolean): number[] => (shared ? [0x03, 0x01, ...uleb(65536)] : [0x00, 0x01]);

function moduleBytes(shared: boolean): Uint8Array<ArrayBuffer> {
  const limits = memoryLimits(shared);
  return Uint8Array.from([
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
    ...section(1, vec([[0x60, 3, I32, I32, I32, 1, F32], MANY_TYPE])),
    ...section(2, vec([[...str('env'), ...str('memory'), 0x02, ...limits]])),
    ...section(3, vec([[0], [0], [1], [1], [0], [1]])),
    ...section(7, vec([[...str('l2'), 0x00, 0], [...str('dot'), 0x00, 1], [...str('l2Many'), 0x00, 2], [...str('dotMany'), 0x00, 3], [...str('l1'), 0x00, 4], [...str('l1Many'), 0x00, 5]])),
    ...section(10, vec([kernelBody('l2'), kernelBody('dot'), manyBody(0, false), manyBody(1, false), kernelBody('l1'), manyBody(4, false)])),
  ]);
}

let compiled: WebAssembly.Module | null = null;
let compiledShared: WebAssembly.Module | null = null;

export const memoryIsShared = (memory: WebAssembly.Memory): boolean => CAN_SHARE && memory.buffer instanceof SharedArrayBuffer;

/** Kernels over `memory`; one small module (per kind of memory), compiled once and instantiated per memory. */
export function kernelsFor(memory: WebAssembly.Memory): Kernels {
  const module = memoryIsShared(memory) ? (compiledShared ??= new WebAssembly.Module(moduleBytes(true))) : (compiled ??= new WebAssembly.Module(moduleBytes(false)));
  const instance = new WebAssembly.Instance(module, { env: { memory } });
  return instance.exports as unknown as Kernels;
}

/**
 * Compiles the module ahead of use, off the main thread where the platform can: the browser
 * library's asynchronous initialisation. Rejects where WebAssembly SIMD is not available.
 */
export async function precompileKernels(): Promise<void> {
  if (CAN_SHARE) compiledShared ??= await WebAssembly.compile(moduleBytes(true));
  else compiled ??= await WebAssembly.compile(moduleBytes(false));
}
