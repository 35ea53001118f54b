/**
 * The int8 kernels' arithmetic in plain JavaScript (int8-kernels.ts): exact integer sums that
 * wrap to 32 bits as the i32 lanes do, so a code store searched here and one searched by the
 * SIMD kernels rank alike.
 */
export function l2Int8(a: Int8Array, ao: number, b: Int8Array, bo: number, bytes: number): number {
  let sum = 0;
  for (let i = 0; i < bytes; i++) {
    const d = a[ao + i]! - b[bo + i]!;
    sum = (sum + d * d) | 0;
  }
  return sum;
}

export function dotInt8(a: Int8Array, ao: number, b: Int8Array, bo: number, bytes: number): number {
  let sum = 0;
  for (let i = 0; i < bytes; i++) sum = (sum + a[ao + i]! * b[bo + i]!) | 0;
  return sum;
}

export function l1Int8(a: Int8Array, ao: number, b: Int8Array, bo: number, bytes: number): number {
  let sum = 0;
  for (let i = 0; i < bytes; i++) sum = (sum + Math.abs(a[ao + i]! - b[bo + i]!)) | 0;
  return sum;
}
