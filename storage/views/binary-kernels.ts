import { A, ACC, B, blockKernelBody, blockKernelsFactory, get, I32X4_ADD, set, SIMD, V128_LOAD } from './block-kernels.js';

/**
 * The Hamming distance between two bit rows (binary quantization) in WebAssembly SIMD: two byte
 * offsets into the module's memory and a byte length that is a whole number of 16-byte blocks;
 * v128.xor, then i8x16.popcnt and two pairwise widening adds into four i32 lanes.
 * hammingBits (below) is its plain JavaScript twin; both count exactly.
 */
export interface BinaryKernels {
  hamming(a: number, b: number, bytes: number): number;
}

const V128_XOR = [0x51];
const I8X16_POPCNT = [0x62];
const I16X8_EXTADD_PAIRWISE_I8X16_U = [0x7d];
const I32X4_EXTADD_PAIRWISE_I16X8_U = [0x7f];

/** acc += the set bits of a xor b, counted per byte and widened pairwise into four i32 lanes. */
const HAMMING_FOLD = [
  ...get(A), SIMD, ...V128_LOAD, 0, 0, ...get(B), SIMD, ...V128_LOAD, 0, 0, SIMD, ...V128_XOR,
  SIMD, ...I8X16_POPCNT, SIMD, ...I16X8_EXTADD_PAIRWISE_I8X16_U, SIMD, ...I32X4_EXTADD_PAIRWISE_I16X8_U,
  ...get(ACC), SIMD, ...I32X4_ADD, ...set(ACC),
];

/** The Hamming kernel over `memory`; compiled once, instantiated per memory. */
export const binaryKernelsFor = blockKernelsFactory<BinaryKernels>(() => [['hamming', blockKernelBody(HAMMING_FOLD, 0)]]);

const POPCOUNT = Uint8Array.from({ length: 256 }, (_, b) => {
  let n = 0;
  for (let x = b; x; x >>= 1) n += x & 1;
  return n;
});

/** The kernel's count in plain JavaScript, for code rows kept in a plain buffer. */
export function hammingBits(a: Uint8Array, ao: number, b: Uint8Array, bo: number, bytes: number): number {
  let n = 0;
  for (let i = 0; i < bytes; i++) n += POPCOUNT[a[ao + i]! ^ b[bo + i]!]!;
  return n;
}
