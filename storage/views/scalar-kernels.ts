/**
 * The SIMD kernels' arithmetic in plain JavaScript over Float32Arrays, bit for bit: four float32
 * lanes over whole groups of four, the lanes summed 0+1+2+3, then a float32 tail. Math.fround
 * after each operation rounds as a float32 instruction does (a float64 result of one float32
 * operation rounds to the same float32). A store searched here and one searched by the SIMD
 * kernels build the same index, so where a vector store lives never changes a result.
 */
const f = Math.fround;

export function l2Scalar(a: Float32Array, ao: number, b: Float32Array, bo: number, dim: number): number {
  const end4 = dim & ~3;
  let s0 = 0;
  let s1 = 0;
  let s2 = 0;
  let s3 = 0;
  let i = 0;
  for (; i < end4; i += 4) {
    const d0 = f(a[ao + i]! - b[bo + i]!);
    const d1 = f(a[ao + i + 1]! - b[bo + i + 1]!);
    const d2 = f(a[ao + i + 2]! - b[bo + i + 2]!);
    const d3 = f(a[ao + i + 3]! - b[bo + i + 3]!);
    s0 = f(s0 + f(d0 * d0));
    s1 = f(s1 + f(d1 * d1));
    s2 = f(s2 + f(d2 * d2));
    s3 = f(s3 + f(d3 * d3));
  }
  let sum = f(f(f(s0 + s1) + s2) + s3);
  for (; i < dim; i++) {
    const d = f(a[ao + i]! - b[bo + i]!);
    sum = f(f(d * d) + sum);
  }
  return sum;
}

export function dotScalar(a: Float32Array, ao: number, b: Float32Array, bo: number, dim: number): number {
  const end4 = dim & ~3;
  let s0 = 0;
  let s1 = 0;
  let s2 = 0;
  let s3 = 0;
  let i = 0;
  for (; i < end4; i += 4) {
    s0 = f(s0 + f(a[ao + i]! * b[bo + i]!));
    s1 = f(s1 + f(a[ao + i + 1]! * b[bo + i + 1]!));
    s2 = f(s2 + f(a[ao + i + 2]! * b[bo + i + 2]!));
    s3 = f(s3 + f(a[ao + i + 3]! * b[bo + i + 3]!));
  }
  let sum = f(f(f(s0 + s1) + s2) + s3);
  for (; i < dim; i++) sum = f(f(a[ao + i]! * b[bo + i]!) + sum);
  return sum;
}
