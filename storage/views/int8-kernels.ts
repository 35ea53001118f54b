import { section, sleb, str, uleb, vec } from './simd-kernels.js';

/**
 * Distance kernels over int8 codes (scalar quantization) in WebAssembly SIMD, assembled from
 * opcodes like simd-kernels.ts. Both take two byte offsets into the module's memory and a byte
 * length that is a whole number of 16-byte blocks (codes are padded with zeros, which add
 * nothing), and return an i32: l2 the sum of squared differences, dot the inner product.
 * Sixteen codes widen to two i16x8 halves, and i32x4.dot_i16x8_s multiplies and adds pairs.
 * Integer arithmetic is exact, so the scalar twin (int8-scalar-kernels.ts) gives the same results.
 */
export interface Int8Kernels {
  l2(a: number, b: number, bytes: number): number;
  dot(a: number, b: number, bytes: number): number;
}

const I32 = 0x7f;
const V128 = 0x7b;
const SIMD = 0xfd;
const OP = { block: 0x02, loop: 0x03, br: 0x0c, brIf: 0x0d, end: 0x0b, localGet: 0x20, localSet: 0x21, i32Const: 0x41, i32Add: 0x6a, i32GeU: 0x4f } as const;
// SIMD sub-opcodes, LEB128-encoded after the 0xfd prefix.
const V128_LOAD = [0x00];
const V128_CONST = [0x0c];
const I32X4_EXTRACT = [0x1b];
const I16X8_EXTEND_LOW_S = [0x87, 0x01];
const I16X8_EXTEND_HIGH_S = [0x88, 0x01];
const I16X8_SUB = [0x91, 0x01];
const I32X4_ADD = [0xae, 0x01];
const I32X4_DOT_I16X8_S = [0xba, 0x01];

/** Locals: 0 a, 1 b, 2 bytes (params); 3 end (i32); 4 acc, 5 va, 6 vb, 7 d (v128). */
function kernelBody(squaredDifference: boolean): number[] {
  const get = (i: number) => [OP.localGet, i];
  const set = (i: number) => [OP.localSet, i];
  const advance = (i: number) => [...get(i), OP.i32Const, ...sleb(16), OP.i32Add, ...set(i)];
  // acc += the pairs' products (dot) or squared differences (l2) of one i16x8 half.
  const half = (extend: number[]) => {
    const widened = [...get(5), SIMD, ...extend, ...get(6), SIMD, ...extend];
    const products = squaredDifference
      ? [...widened, SIMD, ...I16X8_SUB, ...set(7), ...get(7), ...get(7), SIMD, ...I32X4_DOT_I16X8_S]
      : [...widened, SIMD, ...I32X4_DOT_I16X8_S];
    return [...products, ...get(4), SIMD, ...I32X4_ADD, ...set(4)];
  };
  const code = [
    ...get(0), ...get(2), OP.i32Add, ...set(3),
    SIMD, ...V128_CONST, ...new Array<number>(16).fill(0), ...set(4),
    OP.block, 0x40, OP.loop, 0x40,
    ...get(0), ...get(3), OP.i32GeU, OP.brIf, 1,
    ...get(0), SIMD, ...V128_LOAD, 0, 0, ...set(5),
    ...get(1), SIMD, ...V128_LOAD, 0, 0, ...set(6),
    ...half(I16X8_EXTEND_LOW_S), ...half(I16X8_EXTEND_HIGH_S),
    ...advance(0), ...advance(1),
    OP.br, 0, OP.end, OP.end,
    ...get(4), SIMD, ...I32X4_EXTRACT, 0, ...get(4), SIMD, ...I32X4_EXTRACT, 1, OP.i32Add,
    ...get(4), SIMD, ...I32X4_EXTRACT, 2, OP.i32Add, ...get(4), SIMD, ...I32X4_EXTRACT, 3, OP.i32Add,
    OP.end,
  ];
  const body = [...vec([[1, I32], [4, V128]]), ...code];
  return [...uleb(body.length), ...body];
}

function moduleBytes(): Uint8Array<ArrayBuffer> {
  return Uint8Array.from([
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
    ...section(1, vec([[0x60, 3, I32, I32, I32, 1, I32]])),
    ...section(2, vec([[...str('env'), ...str('memory'), 0x02, 0x00, 0x01]])),
    ...section(3, vec([[0], [0]])),
    ...section(7, vec([[...str('l2'), 0x00, 0], [...str('dot'), 0x00, 1]])),
    ...section(10, vec([kernelBody(true), kernelBody(false)])),
  ]);
}

let compiled: WebAssembly.Module | null = null;

/** Int8 kernels over `memory`; compiled once, instantiated per memory. */
export function int8KernelsFor(memory: WebAssembly.Memory): Int8Kernels {
  compiled ??= new WebAssembly.Module(moduleBytes());
  const instance = new WebAssembly.Instance(compiled, { env: { memory } });
  return instance.exports as unknown as Int8Kernels;
}
