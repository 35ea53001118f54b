const encoder = new TextEncoder();
/** Strings up to this many UTF-16 units are encoded straight into the buffer. */
const IN_PLACE_UNITS = 4096;

/** Little-endian binary writer into a buffer that doubles as it fills. */
export class ByteWriter {
  private buf: Uint8Array;
  private view: DataView;
  private pos = 0;

  constructor(initialSize = 256) {
    this.buf = new Uint8Array(initialSize);
    this.view = new DataView(this.buf.buffer);
  }

  get length(): number {
    return this.pos;
  }

  private ensure(extra: number): void {
    const need = this.pos + extra;
    if (need <= this.buf.length) return;
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
    this.view.setUint32(at, v, true);
  }

  finish(): Uint8Array {
    return this.buf.subarray(0, this.pos);
  }
}
