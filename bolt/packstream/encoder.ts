import { PackFloat, Structure, type PackValue } from './structure.js';

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** Thrown for a value PackStream cannot carry (a bigint past 64 bits, a structure of more than 15 fields). */
export class PackError extends Error {}

/** Writes PackStream values into one growing buffer. */
export class Packer {
  private buf = Buffer.allocUnsafe(256);
  private pos = 0;

  /** The bytes written so far, and a fresh start. */
  take(): Buffer {
    const out = Buffer.from(this.buf.subarray(0, this.pos));
    this.pos = 0;
    return out;
  }

  pack(v: PackValue): void {
    if (v === null || v === undefined) return this.byte(0xc0);
    switch (typeof v) {
      case 'boolean':
        return this.byte(v ? 0xc3 : 0xc2);
      case 'number':
        return Number.isSafeInteger(v) ? this.int(v) : this.float(v);
      case 'bigint':
        return this.bigint(v);
      case 'string':
        return this.string(v);
    }
    if (v instanceof PackFloat) return this.float(v.value);
    if (v instanceof Uint8Array) return this.bytes(v);
    if (Array.isArray(v)) {
      this.header(v.length, 0x90, 0xd4);
      for (const x of v) this.pack(x);
      return;
    }
    if (v instanceof Structure) return this.structure(v);
    const keys = Object.keys(v).filter((k) => v[k] !== undefined);
    this.header(keys.length, 0xa0, 0xd8);
    for (const k of keys) {
      this.string(k);
      this.pack(v[k]!);
    }
  }

  private structure(s: Structure): void {
    if (s.fields.length > 15) throw new PackError(`a structure has at most 15 fields, got ${s.fields.length}`);
    this.byte(0xb0 + s.fields.length);
    this.byte(s.signature);
    for (const f of s.fields) this.pack(f);
  }

  private int(n: number): void {
    if (n >= -16 && n <= 127) return this.byte(n & 0xff);
    if (n >= -128 && n <= 127) {
      this.byte(0xc8);
      this.room(1).writeInt8(n, this.pos);
      this.pos += 1;
    } else if (n >= -32768 && n <= 32767) {
      this.byte(0xc9);
      this.room(2).writeInt16BE(n, this.pos);
      this.pos += 2;
    } else if (n >= -2147483648 && n <= 2147483647) {
      this.byte(0xca);
      this.room(4).writeInt32BE(n, this.pos);
      this.pos += 4;
    } else this.int64(BigInt(n));
  }

  private bigint(n: bigint): void {
    if (n < INT64_MIN || n > INT64_MAX) throw new PackError(`integer ${n} does not fit in 64 bits`);
    if (n >= -(2n ** 31n) && n < 2n ** 31n) return this.int(Number(n));
    this.int64(n);
  }

  private int64(n: bigint): void {
    this.byte(0xcb);
    this.room(8).writeBigInt64BE(n, this.pos);
    this.pos += 8;
  }

  private float(n: number): void {
    this.byte(0xc1);
    this.room(8).writeDoubleBE(n, this.pos);
    this.pos += 8;
  }

  private string(s: string): void {
    const length = Buffer.byteLength(s);
    this.header(length, 0x80, 0xd0);
    this.room(length).write(s, this.pos, 'utf8');
    this.pos += length;
  }

  private bytes(b: Uint8Array): void {
    if (b.length < 256) this.sized(0xcc, b.length, 1);
    else if (b.length < 65536) this.sized(0xcd, b.length, 2);
    else this.sized(0xce, b.length, 4);
    this.room(b.length).set(b, this.pos);
    this.pos += b.length;
  }

  /** A size header: tiny (under 16, in the marker's low nibble), then 8, 16 or 32 bits after `wide`, `wide`+1, `wide`+2. */
  private header(size: number, tiny: number, wide: number): void {
    if (size < 16) this.byte(tiny + size);
    else if (size < 256) this.sized(wide, size, 1);
    else if (size < 65536) this.sized(wide + 1, size, 2);
    else this.sized(wide + 2, size, 4);
  }

  private byte(b: number): void {
    this.room(1)[this.pos++] = b;
  }

  private sized(marker: number, size: number, width: 1 | 2 | 4): void {
    this.byte(marker);
    if (width === 1) this.byte(size);
    else if (width === 2) this.u16(size);
    else this.u32(size);
  }

  private u16(n: number): void {
    this.room(2).writeUInt16BE(n, this.pos);
    this.pos += 2;
  }

  private u32(n: number): void {
    this.room(4).writeUInt32BE(n, this.pos);
    this.pos += 4;
  }

  private room(n: number): Buffer {
    if (this.pos + n > this.buf.length) {
      const bigger = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.pos + n));
      this.buf.copy(bigger, 0, 0, this.pos);
      this.buf = bigger;
    }
    return this.buf;
  }
}

/** One value's PackStream bytes. */
export function packValue(v: PackValue): Buffer {
  const p = new Packer();
  p.pack(v);
  return p.take();
}
