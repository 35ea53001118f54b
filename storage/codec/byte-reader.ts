import { CorruptDataError } from '../errors.js';

const decoder = new TextDecoder('utf-8', { fatal: true });

/**
 * Little-endian reader that throws CorruptDataError instead of reading past the end.
 *
 * Given `more`, it reads a stream of frames as one run of bytes: when a read needs bytes past
 * the frame it holds, `more` answers the next frame (null: the stream ends there). A value that
 * straddles two frames is put together in a small array of its own; `copyInto` copies a long
 * run frame by frame. So a state of any size is read with one frame in memory at a time.
 */
export class ByteReader {
  private view: DataView;
  pos: number;
  /** The rest of a frame a straddling value began before, read from once that value is. */
  private after: Uint8Array | null = null;
  private afterAt = 0;

  constructor(
    private buf: Uint8Array,
    start = 0,
    private end = buf.length,
    private readonly more: (() => Uint8Array | null) | null = null,
  ) {
    this.view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
    this.pos = start;
  }

  /** Bytes left in the frame held (for a reader of one record: in the record). */
  get remaining(): number {
    return this.end - this.pos;
  }

  private need(n: number): number {
    if (this.pos + n > this.end) this.gather(n);
    const at = this.pos;
    this.pos += n;
    return at;
  }

  private hold(buf: Uint8Array, at: number): void {
    this.buf = buf;
    this.view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
    this.pos = at;
    this.end = buf.length;
  }

  /** The next frame, or the rest of one a straddling value began; null at the end of the stream. */
  private nextFrame(): boolean {
    if (this.after) {
      this.hold(this.after, this.afterAt);
      this.after = null;
      return true;
    }
    const frame = this.more?.() ?? null;
    if (frame) this.hold(frame, 0);
    return frame !== null;
  }

  /** Makes the next `n` bytes one run at this.pos, from the frames that follow. */
  private gather(n: number): void {
    const ends = (): never => {
      throw new CorruptDataError(`record ends early: needed ${n} more bytes at offset ${this.pos}`);
    };
    if (!this.more) ends();
    while (this.pos === this.end) if (!this.nextFrame()) ends();
    if (this.pos + n <= this.end) return;
    const run = new Uint8Array(n);
    let filled = this.end - this.pos;
    run.set(this.buf.subarray(this.pos, this.end));
    while (filled < n) {
      if (!this.nextFrame()) ends();
      const take = Math.min(n - filled, this.end - this.pos);
      run.set(this.buf.subarray(this.pos, this.pos + take), filled);
      filled += take;
      this.pos += take;
    }
    if (this.pos < this.end) {
      this.after = this.buf;
      this.afterAt = this.pos;
    }
    this.hold(run, 0);
  }

  // Each read takes its position first: need() may move on to another frame, and this.buf with it.
  u8(): number {
    const at = this.need(1);
    return this.buf[at]!;
  }

  u16(): number {
    const at = this.need(2);
    return this.view.getUint16(at, true);
  }

  u32(): number {
    const at = this.need(4);
    return this.view.getUint32(at, true);
  }

  f32(): number {
    const at = this.need(4);
    return this.view.getFloat32(at, true);
  }

  f64(): number {
    const at = this.need(8);
    return this.view.getFloat64(at, true);
  }

  bytes(n: number): Uint8Array {
    const at = this.need(n);
    return this.buf.subarray(at, at + n);
  }

  /** Fills `target` with the next target.length bytes, a frame at a time. */
  copyInto(target: Uint8Array): void {
    if (this.pos + target.length <= this.end || !this.more) {
      target.set(this.bytes(target.length));
      return;
    }
    for (let filled = 0; filled < target.length; ) {
      if (this.pos === this.end && !this.nextFrame()) throw new CorruptDataError(`record ends early: needed ${target.length - filled} more bytes at offset ${this.pos}`);
      const take = Math.min(target.length - filled, this.end - this.pos);
      target.set(this.buf.subarray(this.pos, this.pos + take), filled);
      filled += take;
      this.pos += take;
    }
  }

  /** Copies `count` float32 values into `target` at `offset` (elements). */
  floatsInto(target: Float32Array, offset: number, count: number): void {
    this.copyInto(new Uint8Array(target.buffer, target.byteOffset + offset * 4, count * 4));
  }

  str(): string {
    const n = this.u32();
    try {
      return decoder.decode(this.bytes(n));
    } catch {
      throw new CorruptDataError(`invalid UTF-8 in a string at offset ${this.pos - n}`);
    }
  }

  /** Throws unless every byte has been read (of the record, or of the whole stream of frames). */
  expectEnd(): void {
    while (this.pos === this.end && this.nextFrame());
    if (this.pos !== this.end) throw new CorruptDataError(`${this.end - this.pos} unexpected bytes after the record`);
  }
}
