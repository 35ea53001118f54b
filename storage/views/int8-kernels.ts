import { A, ACC, B, blockKernelBody, blockKernelsFactory, get, I32X4_ADD, SCRATCH, set, SIMD, V128_LOAD } from './block-kernels.js';

/**
 * Distance kernels over int8 codes (scalar quantization) in WebAssembly SIMD, assembled from
 * opcodes like simd-kernels.ts. Both take two byte offsets into the module's memory and a byte
 * length that is a whole number of 16-byte blocks (codes are padded with zeros, which add
 * nothing), and return an i32: l2 the sum of squared differences, dot the inner product, l1 the
 * sum of absolute differences. Sixteen codes widen to two i16x8 halves, and i32x4.dot_i16x8_s
 * multiplies and adds pairs (l1: i32x4.extadd_pairwise_i16x8_s adds the pairs of differences).
 * Integer arithmetic is exact, so the scalar twin (int8-scalar-kernels.ts) gives the same results.
 * l2Many, dotMany and l1Many compare the row at `a` with many (simd-kernels.ts manyBody), as float64s.
 */
export interface Int8Kernels {
  l2(a: number, b: number, bytes: number): number;
  dot(a: number, b: number, bytes: number): number;
  l2Many(a: number, slots: number, n: number, out: number, base: number, stride: number, bytes: number): void;
  dotMany(a: number, slots: number, n: number, out: number, base: number, stride: number, bytes: number): void;
  l1(a: number, b: number, bytes: number): number;
  l1Many(a: number, slots: number, n: number, out: number, base: number, stride: number, bytes: number): void;
}

const I16X8_EXTEND_LOW_S = [0x87, 0x01];
const I16X8_EXTEND_HIGH_S = [0x88, 0x01];
const I16X8_SUB = [0x91, 0x01];
const I32X4_DOT_I16X8_S = [0xba, 0x01];
const I16X8_ABS = [0x80, 0x01];
const I32X4_EXTADD_PAIRWISE_I16X8_S = [0x7e];

const VA = SCRATCH;
const VB = SCRATCH + 1;
const D = SCRATCH + 2;

/** acc += the products (dot), squared differences (l2) or absolute differences (l1) of the two blocks' codes. */
function int8Fold(kind: 'l2' | 'dot' | 'l1'): number[] {
  // One i16x8 half: the pairs' products or differences squared added by dot_i16x8_s, or their absolute differences added pairwise.
  const half = (extend: number[]) => {
    const widened = [...get(VA), SIMD, ...extend, ...get(VB), SIMD, ...extend];
    const products = {
      l2: [...widened, SIMD, ...I16X8_SUB, ...set(D), ...get(D), ...get(D), SIMD, ...I32X4_DOT_I16X8_S],
      dot: [...widened, SIMD, ...I32X4_DOT_I16X8_S],
      l1: [...widened, SIMD, ...I16X8_SUB, SIMD, ...I16X8_ABS, SIMD, ...I32X4_EXTADD_PAIRWISE_I16X8_S],
    }[kind];
    return [...products, ...get(ACC), SIMD, ...I32X4_ADD, ...set(ACC)];
  };
  return [
    ...get(A), SIMD, ...V128_LOAD, 0, 0, ...set(VA),
    ...get(B), SIMD, ...V128_LOAD, 0, 0, ...set(VB),
    ...half(I16X8_EXTEND_LOW_S), ...half(I16X8_EXTEND_HIGH_S),
  ];
}

/** Int8 kernels over `memory`; compiled once, instantiated per memory. */
export const int8KernelsFor = blockKernelsFactory<Int8Kernels>(() => [
  ['l2', blockKernelBody(int8Fold('l2'), 3)],
  ['dot', blockKernelBody(int8Fold('dot'), 3)],
  ['l1', blockKernelBody(int8Fold('l1'), 3)],
], true);
