import { MANY_TYPE, manyBody, memoryIsShared, memoryLimits, section, sleb, str, uleb, vec } from './simd-kernels.js';

/**
 * Assembles WebAssembly SIMD kernels of one shape: (a, b, bytes) -> i32 over two rows of the
 * module's imported memory, `bytes` long (whole 16-byte blocks), walked in step. Each pair of
 * blocks is folded into an i32x4 accumulator and the answer is the sum of its four lanes. The
 * quantized codes' kernels (int8-kernels.ts, binary-kernels.ts) differ only in the fold.
 */

export const SIMD = 0xfd;
export const OP = { block: 0x02, loop: 0x03, br: 0x0c, brIf: 0x0d, end: 0x0b, localGet: 0x20, localSet: 0x21, i32Const: 0x41, i32Add: 0x6a, i32GeU: 0x4f } as const;
// SIMD sub-opcodes, LEB128-encoded after the 0xfd prefix.
export const V128_LOAD = [0x00];
export const I32X4_ADD = [0xae, 0x01];
const V128_CONST = [0x0c];
const I32X4_EXTRACT = [0x1b];
const I32 = 0x7f;
const V128 = 0x7b;

export const get = (i: number): number[] => [OP.localGet, i];
export const set = (i: number): number[] => [OP.localSet, i];

/** Locals: 0 a and 1 b (byte offsets of the current blocks), 2 bytes; 3 end; 4 the accumulator. */
export const A = 0;
export const B = 1;
export const ACC = 4;
/** The first of the fold's own v128 locals. */
export const SCRATCH = 5;

/**
 * A kernel's body. `fold` adds the blocks at local A and local B into local ACC, and may use
 * `scratch` v128 locals from SCRATCH on.
 */
export function blockKernelBody(fold: number[], scratch: number): number[] {
  const advance = (i: number) => [...get(i), OP.i32Const, ...sleb(16), OP.i32Add, ...set(i)];
  const lane = (k: number) => [...get(ACC), SIMD, ...I32X4_EXTRACT, k];
  const code = [
    ...get(A), ...get(2), OP.i32Add, ...set(3),
    SIMD, ...V128_CONST, ...new Array<number>(16).fill(0), ...set(ACC),
    OP.block, 0x40, OP.loop, 0x40,
    ...get(A), ...get(3), OP.i32GeU, OP.brIf, 1,
    ...fold,
    ...advance(A), ...advance(B),
    OP.br, 0, OP.end, OP.end,
    ...lane(0), ...lane(1), OP.i32Add, ...lane(2), OP.i32Add, ...lane(3), OP.i32Add,
    OP.end,
  ];
  const body = [...vec([[1, I32], [1 + scratch, V128]]), ...code];
  return [...uleb(body.length), ...body];
}

/**
 * A module importing env.memory (shared or not) and exporting these kernels by name, all of type
 * (i32, i32, i32) -> i32; with `batched`, each also as `<name>Many` (simd-kernels.ts manyBody).
 */
function blockKernelModule(kernels: readonly (readonly [name: string, body: number[]])[], shared: boolean, batched: boolean): WebAssembly.Module {
  const many = batched ? kernels.map(([name], i) => [`${name}Many`, manyBody(i, true)] as const) : [];
  const all = [...kernels, ...many];
  const bytes = Uint8Array.from([
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
    ...section(1, vec([[0x60, 3, I32, I32, I32, 1, I32], MANY_TYPE])),
    ...section(2, vec([[...str('env'), ...str('memory'), 0x02, ...memoryLimits(shared)]])),
    ...section(3, vec(all.map((_, i) => [i < kernels.length ? 0 : 1]))),
    ...section(7, vec(all.map(([name], i) => [...str(name), 0x00, i]))),
    ...section(10, vec(all.map(([, body]) => body))),
  ]);
  return new WebAssembly.Module(bytes);
}

/**
 * Instantiates kernels over a memory: `kernels` is asked for the bodies once, and each module
 * (one for shared memories, one for others) is compiled once; `batched` as blockKernelModule's.
 */
export function blockKernelsFactory<T>(kernels: () => readonly (readonly [name: string, body: number[]])[], batched = false): (memory: WebAssembly.Memory) => T {
  const compiled: [WebAssembly.Module | null, WebAssembly.Module | null] = [null, null];
  return (memory) => {
    const shared = memoryIsShared(memory) ? 1 : 0;
    const module = (compiled[shared] ??= blockKernelModule(kernels(), shared === 1, batched));
    return new WebAssembly.Instance(module, { env: { memory } }).exports as unknown as T;
  };
}
