/**
 * The SIMD kernels' arithmetic in plain JavaScript over Float32Arrays, bit for bit: sixteen
 * float32 lanes (four accumulators of four) over whole groups of sixteen, then groups of four
 * into the first accumulator, the accumulators summed (0 + 1) + (2 + 3) lane by lane, the lanes
 * 0+1+2+3, then a float32 tail. Math.fround after each operation rounds as a float32
 * instruction does (a float64 result of one float32 operation rounds to the same float32). A
 * store searched here and one searched by the SIMD kernels build the same index, so where a
 * vector store lives never changes a result.
 */
const f = Math.fround;
/** The sixteen lanes' sums, reused (one kernel call at a time on a thread). */
const lanes = new Float64Array(16);

/** Lane sums to the kernels' one float32: (acc0 + acc1) + (acc2 + acc3) for each lane, then lanes 0+1+2+3. */
function fold(s: Float64Array): number {
  const t0 = f(f(s[0]! + s[4]!) + f(s[8]! + s[12]!));
  const t1 = f(f(s[1]! + s[5]!) + f(s[9]! + s[13]!));
  const t2 = f(f(s[2]! + s[6]!) + f(s[10]! + s[14]!));
  const t3 = f(f(s[3]! + s[7]!) + f(s[11]! + s[15]!));
  return f(f(f(t0 + t1) + t2) + t3);
}

export function l2Scalar(a: Float32Array, ao: number, b: Float32Array, bo: number, dim: number): number {
  const s = lanes.fill(0);
  const end16 = dim & ~15;
  const end4 = dim & ~3;
  let i = 0;
  for (; i < end16; i += 16) {
    for (let k = 0; k < 16; k++) {
      const d = f(a[ao + i + k]! - b[bo + i + k]!);
      s[k] = f(s[k]! + f(d * d));
    }
  }
  for (; i < end4; i += 4) {
    for (let k = 0; k < 4; k++) {
      const d = f(a[ao + i + k]! - b[bo + i + k]!);
      s[k] = f(s[k]! + f(d * d));
    }
  }
  let sum = fold(s);
  for (; i < dim; i++) {
    const d = f(a[ao + i]! - b[bo + i]!);
    sum = f(f(d * d) + sum);
  }
  return sum;
}

export function dotScalar(a: Float32Array, ao: number, b: Float32Array, bo: number, dim: number): number {
  const s = lanes.fill(0);
  const end16 = dim & ~15;
  const end4 = dim & ~3;
  let i = 0;
  for (; i < end16; i += 16) for (let k = 0; k < 16; k++) s[k] = f(s[k]! + f(a[ao + i + k]! * b[bo + i + k]!));
  for (; i < end4; i += 4) for (let k = 0; k < 4; k++) s[k] = f(s[k]! + f(a[ao + i + k]! * b[bo + i + k]!));
  let sum = fold(s);
  for (; i < dim; i++) sum = f(f(a[ao + i]! * b[bo + i]!) + sum);
  return sum;
}
