import { CorruptDataError } from '../errors.js';

const decoder = new TextDecoder('utf-8', { fatal: true });

/** Little-endian reader that throws CorruptDataError instead of reading past the end. */
export class ByteReader {
  private readonly view: DataView;
  pos: number;

  constructor(private readonly buf: Uint8Array, start = 0, private readonly end = buf.length) {
    this.view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
    this.pos = start;
  }

  get remaining(): number {
    return this.end - this.pos;
  }

  private need(n: number): number {
    if (this.pos + n > this.end) throw new CorruptDataError(`record ends early: needed ${n} more bytes at offset ${this.pos}`);
    const at = this.pos;
    this.pos += n;
    return at;
  }

  u8(): number {
    return this.buf[this.need(1)]!;
  }

  u16(): number {
    return this.view.getUint16(this.need(2), true);
  }

  u32(): number {
    return this.view.getUint32(this.need(4), true);
  }

  f32(): number {
    return this.view.getFloat32(this.need(4), true);
  }

  f64(): number {
    return this.view.getFloat64(this.need(8), true);
  }

  bytes(n: number): Uint8Array {
    const at = this.need(n);
    return this.buf.subarray(at, at + n);
  }

  /** Copies `count` float32 values into `target` at `offset` (elements). */
  floatsInto(target: Float32Array, offset: number, count: number): void {
    const src = this.bytes(count * 4);
    new Uint8Array(target.buffer, target.byteOffset + offset * 4, count * 4).set(src);
  }

  str(): string {
    const n = this.u32();
    try {
      return decoder.decode(this.bytes(n));
    } catch {
      throw new CorruptDataError(`invalid UTF-8 in a string at offset ${this.pos - n}`);
    }
  }

  expectEnd(): void {
    if (this.pos !== this.end) throw new CorruptDataError(`${this.end - this.pos} unexpected bytes after the record`);
  }
}
