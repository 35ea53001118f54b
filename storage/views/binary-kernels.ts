import { section, sleb, str, uleb, vec } from './simd-kernels.js';

/**
 * The Hamming distance between two bit rows (binary quantization) in WebAssembly SIMD: two byte
 * offsets into the module's memory and a byte length that is a whole number of 16-byte blocks;
 * v128.xor, then i8x16.popcnt and two pairwise widening adds into four i32 lanes.
 * hammingBits (below) is its plain JavaScript twin; both count exactly.
 */
export interface BinaryKernels {
  hamming(a: number, b: number, bytes: number): number;
}

const I32 = 0x7f;
const V128 = 0x7b;
const SIMD = 0xfd;
const OP = { block: 0x02, loop: 0x03, br: 0x0c, brIf: 0x0d, end: 0x0b, localGet: 0x20, localSet: 0x21, i32Const: 0x41, i32Add: 0x6a, i32GeU: 0x4f } as const;
const V128_LOAD = [0x00];
const V128_CONST = [0x0c];
const V128_XOR = [0x51];
const I8X16_POPCNT = [0x62];
const I16X8_EXTADD_PAIRWISE_I8X16_U = [0x7d];
const I32X4_EXTADD_PAIRWISE_I16X8_U = [0x7f];
const I32X4_ADD = [0xae, 0x01];
const I32X4_EXTRACT = [0x1b];

/** Locals: 0 a, 1 b, 2 bytes (params); 3 end (i32); 4 acc (v128). */
function hammingBody(): number[] {
  const get = (i: number) => [OP.localGet, i];
  const set = (i: number) => [OP.localSet, i];
  const advance = (i: number) => [...get(i), OP.i32Const, ...sleb(16), OP.i32Add, ...set(i)];
  const code = [
    ...get(0), ...get(2), OP.i32Add, ...set(3),
    SIMD, ...V128_CONST, ...new Array<number>(16).fill(0), ...set(4),
    OP.block, 0x40, OP.loop, 0x40,
    ...get(0), ...get(3), OP.i32GeU, OP.brIf, 1,
    ...get(0), SIMD, ...V128_LOAD, 0, 0, ...get(1), SIMD, ...V128_LOAD, 0, 0, SIMD, ...V128_XOR,
    SIMD, ...I8X16_POPCNT, SIMD, ...I16X8_EXTADD_PAIRWISE_I8X16_U, SIMD, ...I32X4_EXTADD_PAIRWISE_I16X8_U,
    ...get(4), SIMD, ...I32X4_ADD, ...set(4),
    ...advance(0), ...advance(1),
    OP.br, 0, OP.end, OP.end,
    ...get(4), SIMD, ...I32X4_EXTRACT, 0, ...get(4), SIMD, ...I32X4_EXTRACT, 1, OP.i32Add,
    ...get(4), SIMD, ...I32X4_EXTRACT, 2, OP.i32Add, ...get(4), SIMD, ...I32X4_EXTRACT, 3, OP.i32Add,
    OP.end,
  ];
  const body = [...vec([[1, I32], [1, V128]]), ...code];
  return [...uleb(body.length), ...body];
}

function moduleBytes(): Uint8Array<ArrayBuffer> {
  return Uint8Array.from([
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
    ...section(1, vec([[0x60, 3, I32, I32, I32, 1, I32]])),
    ...section(2, vec([[...str('env'), ...str('memory'), 0x02, 0x00, 0x01]])),
    ...section(3, vec([[0]])),
    ...section(7, vec([[...str('hamming'), 0x00, 0]])),
    ...section(10, vec([hammingBody()])),
  ]);
}

let compiled: WebAssembly.Module | null = null;

export function binaryKernelsFor(memory: WebAssembly.Memory): BinaryKernels {
  compiled ??= new WebAssembly.Module(moduleBytes());
  const instance = new WebAssembly.Instance(compiled, { env: { memory } });
  return instance.exports as unknown as BinaryKernels;
}

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
