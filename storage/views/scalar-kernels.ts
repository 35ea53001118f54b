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

/** The sixteen lane sums of a kernel call, kept in locals as they add up and stored here for fold (one call at a time on a thread). */
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
  const end16 = dim & ~15;
  const end4 = dim & ~3;
  let s0 = 0, s1 = 0, s2 = 0, s3 = 0, s4 = 0, s5 = 0, s6 = 0, s7 = 0;
  let s8 = 0, s9 = 0, s10 = 0, s11 = 0, s12 = 0, s13 = 0, s14 = 0, s15 = 0;
  let i = 0;
  for (; i < end16; i += 16) {
    const d0 = f(a[ao + i]! - b[bo + i]!);
    const d1 = f(a[ao + i + 1]! - b[bo + i + 1]!);
    const d2 = f(a[ao + i + 2]! - b[bo + i + 2]!);
    const d3 = f(a[ao + i + 3]! - b[bo + i + 3]!);
    const d4 = f(a[ao + i + 4]! - b[bo + i + 4]!);
    const d5 = f(a[ao + i + 5]! - b[bo + i + 5]!);
    const d6 = f(a[ao + i + 6]! - b[bo + i + 6]!);
    const d7 = f(a[ao + i + 7]! - b[bo + i + 7]!);
    const d8 = f(a[ao + i + 8]! - b[bo + i + 8]!);
    const d9 = f(a[ao + i + 9]! - b[bo + i + 9]!);
    const d10 = f(a[ao + i + 10]! - b[bo + i + 10]!);
    const d11 = f(a[ao + i + 11]! - b[bo + i + 11]!);
    const d12 = f(a[ao + i + 12]! - b[bo + i + 12]!);
    const d13 = f(a[ao + i + 13]! - b[bo + i + 13]!);
    const d14 = f(a[ao + i + 14]! - b[bo + i + 14]!);
    const d15 = f(a[ao + i + 15]! - b[bo + i + 15]!);
    s0 = f(s0 + f(d0 * d0));
    s1 = f(s1 + f(d1 * d1));
    s2 = f(s2 + f(d2 * d2));
    s3 = f(s3 + f(d3 * d3));
    s4 = f(s4 + f(d4 * d4));
    s5 = f(s5 + f(d5 * d5));
    s6 = f(s6 + f(d6 * d6));
    s7 = f(s7 + f(d7 * d7));
    s8 = f(s8 + f(d8 * d8));
    s9 = f(s9 + f(d9 * d9));
    s10 = f(s10 + f(d10 * d10));
    s11 = f(s11 + f(d11 * d11));
    s12 = f(s12 + f(d12 * d12));
    s13 = f(s13 + f(d13 * d13));
    s14 = f(s14 + f(d14 * d14));
    s15 = f(s15 + f(d15 * d15));
  }
  for (; i < end4; i += 4) {
    const d0 = f(a[ao + i]! - b[bo + i]!);
    s0 = f(s0 + f(d0 * d0));
    const d1 = f(a[ao + i + 1]! - b[bo + i + 1]!);
    s1 = f(s1 + f(d1 * d1));
    const d2 = f(a[ao + i + 2]! - b[bo + i + 2]!);
    s2 = f(s2 + f(d2 * d2));
    const d3 = f(a[ao + i + 3]! - b[bo + i + 3]!);
    s3 = f(s3 + f(d3 * d3));
  }
  lanes[0] = s0; lanes[1] = s1; lanes[2] = s2; lanes[3] = s3; lanes[4] = s4; lanes[5] = s5; lanes[6] = s6; lanes[7] = s7;
  lanes[8] = s8; lanes[9] = s9; lanes[10] = s10; lanes[11] = s11; lanes[12] = s12; lanes[13] = s13; lanes[14] = s14; lanes[15] = s15;
  let sum = fold(lanes);
  for (; i < dim; i++) {
    const d = f(a[ao + i]! - b[bo + i]!);
    sum = f(f(d * d) + sum);
  }
  return sum;
}

export function dotScalar(a: Float32Array, ao: number, b: Float32Array, bo: number, dim: number): number {
  const end16 = dim & ~15;
  const end4 = dim & ~3;
  let s0 = 0, s1 = 0, s2 = 0, s3 = 0, s4 = 0, s5 = 0, s6 = 0, s7 = 0;
  let s8 = 0, s9 = 0, s10 = 0, s11 = 0, s12 = 0, s13 = 0, s14 = 0, s15 = 0;
  let i = 0;
  for (; i < end16; i += 16) {
    s0 = f(s0 + f(a[ao + i]! * b[bo + i]!));
    s1 = f(s1 + f(a[ao + i + 1]! * b[bo + i + 1]!));
    s2 = f(s2 + f(a[ao + i + 2]! * b[bo + i + 2]!));
    s3 = f(s3 + f(a[ao + i + 3]! * b[bo + i + 3]!));
    s4 = f(s4 + f(a[ao + i + 4]! * b[bo + i + 4]!));
    s5 = f(s5 + f(a[ao + i + 5]! * b[bo + i + 5]!));
    s6 = f(s6 + f(a[ao + i + 6]! * b[bo + i + 6]!));
    s7 = f(s7 + f(a[ao + i + 7]! * b[bo + i + 7]!));
    s8 = f(s8 + f(a[ao + i + 8]! * b[bo + i + 8]!));
    s9 = f(s9 + f(a[ao + i + 9]! * b[bo + i + 9]!));
    s10 = f(s10 + f(a[ao + i + 10]! * b[bo + i + 10]!));
    s11 = f(s11 + f(a[ao + i + 11]! * b[bo + i + 11]!));
    s12 = f(s12 + f(a[ao + i + 12]! * b[bo + i + 12]!));
    s13 = f(s13 + f(a[ao + i + 13]! * b[bo + i + 13]!));
    s14 = f(s14 + f(a[ao + i + 14]! * b[bo + i + 14]!));
    s15 = f(s15 + f(a[ao + i + 15]! * b[bo + i + 15]!));
  }
  for (; i < end4; i += 4) {
    s0 = f(s0 + f(a[ao + i]! * b[bo + i]!));
    s1 = f(s1 + f(a[ao + i + 1]! * b[bo + i + 1]!));
    s2 = f(s2 + f(a[ao + i + 2]! * b[bo + i + 2]!));
    s3 = f(s3 + f(a[ao + i + 3]! * b[bo + i + 3]!));
  }
  lanes[0] = s0; lanes[1] = s1; lanes[2] = s2; lanes[3] = s3; lanes[4] = s4; lanes[5] = s5; lanes[6] = s6; lanes[7] = s7;
  lanes[8] = s8; lanes[9] = s9; lanes[10] = s10; lanes[11] = s11; lanes[12] = s12; lanes[13] = s13; lanes[14] = s14; lanes[15] = s15;
  let sum = fold(lanes);
  for (; i < dim; i++) sum = f(f(a[ao + i]! * b[bo + i]!) + sum);
  return sum;
}

export function l1Scalar(a: Float32Array, ao: number, b: Float32Array, bo: number, dim: number): number {
  const end16 = dim & ~15;
  const end4 = dim & ~3;
  let s0 = 0, s1 = 0, s2 = 0, s3 = 0, s4 = 0, s5 = 0, s6 = 0, s7 = 0;
  let s8 = 0, s9 = 0, s10 = 0, s11 = 0, s12 = 0, s13 = 0, s14 = 0, s15 = 0;
  let i = 0;
  // The absolute value of a float32 is a float32: no rounding after Math.abs.
  for (; i < end16; i += 16) {
    s0 = f(s0 + Math.abs(f(a[ao + i]! - b[bo + i]!)));
    s1 = f(s1 + Math.abs(f(a[ao + i + 1]! - b[bo + i + 1]!)));
    s2 = f(s2 + Math.abs(f(a[ao + i + 2]! - b[bo + i + 2]!)));
    s3 = f(s3 + Math.abs(f(a[ao + i + 3]! - b[bo + i + 3]!)));
    s4 = f(s4 + Math.abs(f(a[ao + i + 4]! - b[bo + i + 4]!)));
    s5 = f(s5 + Math.abs(f(a[ao + i + 5]! - b[bo + i + 5]!)));
    s6 = f(s6 + Math.abs(f(a[ao + i + 6]! - b[bo + i + 6]!)));
    s7 = f(s7 + Math.abs(f(a[ao + i + 7]! - b[bo + i + 7]!)));
    s8 = f(s8 + Math.abs(f(a[ao + i + 8]! - b[bo + i + 8]!)));
    s9 = f(s9 + Math.abs(f(a[ao + i + 9]! - b[bo + i + 9]!)));
    s10 = f(s10 + Math.abs(f(a[ao + i + 10]! - b[bo + i + 10]!)));
    s11 = f(s11 + Math.abs(f(a[ao + i + 11]! - b[bo + i + 11]!)));
    s12 = f(s12 + Math.abs(f(a[ao + i + 12]! - b[bo + i + 12]!)));
    s13 = f(s13 + Math.abs(f(a[ao + i + 13]! - b[bo + i + 13]!)));
    s14 = f(s14 + Math.abs(f(a[ao + i + 14]! - b[bo + i + 14]!)));
    s15 = f(s15 + Math.abs(f(a[ao + i + 15]! - b[bo + i + 15]!)));
  }
  for (; i < end4; i += 4) {
    s0 = f(s0 + Math.abs(f(a[ao + i]! - b[bo + i]!)));
    s1 = f(s1 + Math.abs(f(a[ao + i + 1]! - b[bo + i + 1]!)));
    s2 = f(s2 + Math.abs(f(a[ao + i + 2]! - b[bo + i + 2]!)));
    s3 = f(s3 + Math.abs(f(a[ao + i + 3]! - b[bo + i + 3]!)));
  }
  lanes[0] = s0; lanes[1] = s1; lanes[2] = s2; lanes[3] = s3; lanes[4] = s4; lanes[5] = s5; lanes[6] = s6; lanes[7] = s7;
  lanes[8] = s8; lanes[9] = s9; lanes[10] = s10; lanes[11] = s11; lanes[12] = s12; lanes[13] = s13; lanes[14] = s14; lanes[15] = s15;
  let sum = fold(lanes);
  for (; i < dim; i++) sum = f(Math.abs(f(a[ao + i]! - b[bo + i]!)) + sum);
  return sum;
}
