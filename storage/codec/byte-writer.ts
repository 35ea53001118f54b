const encoder = new TextEncoder();
/** Strings up to this many UTF-16 units are encoded straight into the buffer. */
const IN_PLACE_UNITS = 4096;

/**
 * Little-endian binary writer into a buffer that doubles as it fills. Given a `sink`, it writes
 * through instead: a full buffer is handed to the sink (which must use the bytes before it
 * returns: the buffer is reused) and a large array goes to it without a copy, so memory stays
 * at the buffer's size however much is written; call flush() at the end.
 */
export class ByteWriter {
  private buf: Uint8Array;
  private view: DataView;
  private pos = 0;
  /** Bytes handed to the sink so far. */
  private flushed = 0;

  constructor(initialSize = 256, private readonly sink?: (bytes: Uint8Array) => void) {
    this.buf = new Uint8Array(initialSize);
    this.view = new DataView(this.buf.buffer);
  }

  /** Bytes written so far (handed to the sink included). */
  get length(): number {
    return this.flushed + this.pos;
  }

  /** Hands what the buffer holds to the sink. */
  flush(): void {
    if (!this.sink || this.pos === 0) return;
    this.sink(this.buf.subarray(0, this.pos));
    this.flushed += this.pos;
    this.pos = 0;
  }

  private ensure(extra: number): void {
    const need = this.pos + extra;
    if (need <= this.buf.length) return;
    if (this.sink) {
      this.flush();
      if (extra <= this.buf.length) return;
    }
    let size = this.buf.length * 2;
    while (size < need) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.buf.subarray(0, this.pos));
    this.buf = next;
    this.view = new DataView(next.buffer);
  }

  u8(v: number): this {
    this.ensure(1);
    this.buf[this.pos++] = v;
    return this;
  }

  u16(v: number): this {
    this.ensure(2);
    this.view.setUint16(this.pos, v, true);
    this.pos += 2;
    return this;
  }

  u32(v: number): this {
    this.ensure(4);
    this.view.setUint32(this.pos, v, true);
    this.pos += 4;
    return this;
  }

  f32(v: number): this {
    this.ensure(4);
    this.view.setFloat32(this.pos, v, true);
    this.pos += 4;
    return this;
  }

  f64(v: number): this {
    this.ensure(8);
    this.view.setFloat64(this.pos, v, true);
    this.pos += 8;
    return this;
  }

  bytes(b: Uint8Array): this {
    if (this.sink && b.length > this.buf.length - this.pos) {
      this.flush();
      if (b.length > this.buf.length) {
        this.sink(b);
        this.flushed += b.length;
        return this;
      }
    }
    this.ensure(b.length);
    this.buf.set(b, this.pos);
    this.pos += b.length;
    return this;
  }

  /** Raw float32 values; the platforms we run on are little-endian, so the bytes copy as they are. */
  floats(v: Float32Array): this {
    return this.bytes(new Uint8Array(v.buffer, v.byteOffset, v.byteLength));
  }

  /**
   * UTF-8 with a u32 byte-length prefix. A short string is encoded in place, room made for its
   * worst case (3 bytes a UTF-16 unit): a temporary array for each of a write's strings cost more
   * than the rest of its encoding. A long one is encoded apart first, so the buffer grows only by
   * what it takes.
   */
  str(s: string): this {
    if (s.length > IN_PLACE_UNITS) {
      const b = encoder.encode(s);
      this.u32(b.length);
      return this.bytes(b);
    }
    this.ensure(4 + s.length * 3);
    const { written } = encoder.encodeInto(s, this.buf.subarray(this.pos + 4));
    this.view.setUint32(this.pos, written, true);
    this.pos += 4 + written;
    return this;
  }

  /** Overwrites a u32 written earlier, at an absolute position. */
  patchU32(at: number, v: number): void {
    if (at < this.flushed) throw new Error(`byte ${at} was handed to the sink already`);
    this.view.setUint32(at - this.flushed, v, true);
  }

  finish(): Uint8Array {
    return this.buf.subarray(0, this.pos);
  }
}
