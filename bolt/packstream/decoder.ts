import { PackFloat, Structure, type PackValue } from './structure.js';

/** A Float keeps its type when its value is whole (see PackFloat). */
const floatValue = (x: number): PackValue => (Number.isInteger(x) ? new PackFloat(x) : x);

/** Thrown for bytes that are not a well-formed PackStream value. */
export class UnpackError extends Error {}

/** Lists, maps and structures nest at most this deep, so a hostile message cannot exhaust the stack. */
export const MAX_NESTING = 1000;

const SAFE_MIN = BigInt(Number.MIN_SAFE_INTEGER);
const SAFE_MAX = BigInt(Number.MAX_SAFE_INTEGER);

/** Reads PackStream values from one message's bytes. */
export class Unpacker {
  private pos = 0;
  private depth = 0;

  constructor(private readonly buf: Buffer) {}

  get done(): boolean {
    return this.pos >= this.buf.length;
  }

  unpack(): PackValue {
    const m = this.u8();
    if (m < 0x80) return m;
    if (m >= 0xf0) return m - 0x100;
    const hi = m & 0xf0;
    const lo = m & 0x0f;
    if (hi === 0x80) return this.string(lo);
    if (hi === 0x90) return this.list(lo);
    if (hi === 0xa0) return this.map(lo);
    if (hi === 0xb0) return this.structure(lo);
    switch (m) {
      case 0xc0:
        return null;
      case 0xc1:
        return floatValue(this.read(8).readDoubleBE(0));
      case 0xc2:
        return false;
      case 0xc3:
        return true;
      case 0xc8:
        return this.read(1).readInt8(0);
      case 0xc9:
        return this.read(2).readInt16BE(0);
      case 0xca:
        return this.read(4).readInt32BE(0);
      case 0xcb: {
        const n = this.read(8).readBigInt64BE(0);
        return n >= SAFE_MIN && n <= SAFE_MAX ? Number(n) : n;
      }
      case 0xcc:
        return new Uint8Array(this.read(this.u8()));
      case 0xcd:
        return new Uint8Array(this.read(this.u16()));
      case 0xce:
        return new Uint8Array(this.read(this.u32()));
      case 0xd0:
        return this.string(this.u8());
      case 0xd1:
        return this.string(this.u16());
      case 0xd2:
        return this.string(this.u32());
      case 0xd4:
        return this.list(this.u8());
      case 0xd5:
        return this.list(this.u16());
      case 0xd6:
        return this.list(this.u32());
      case 0xd8:
        return this.map(this.u8());
      case 0xd9:
        return this.map(this.u16());
      case 0xda:
        return this.map(this.u32());
    }
    throw new UnpackError(`unknown PackStream marker 0x${m.toString(16)} at byte ${this.pos - 1}`);
  }

  private string(n: number): string {
    return this.read(n).toString('utf8');
  }

  private list(n: number): PackValue[] {
    this.enter();
    const out: PackValue[] = [];
    for (let i = 0; i < n; i++) out.push(this.unpack());
    this.depth--;
    return out;
  }

  private enter(): void {
    if (++this.depth > MAX_NESTING) throw new UnpackError(`values nest more than ${MAX_NESTING} levels deep`);
  }

  private map(n: number): { [key: string]: PackValue } {
    this.enter();
    const out: { [key: string]: PackValue } = {};
    for (let i = 0; i < n; i++) {
      const key = this.unpack();
      if (typeof key !== 'string') throw new UnpackError('a map key must be a string');
      // defineProperty so that a key named __proto__ stays a plain entry
      Object.defineProperty(out, key, { value: this.unpack(), enumerable: true, writable: true, configurable: true });
    }
    this.depth--;
    return out;
  }

  private structure(n: number): Structure {
    this.enter();
    const signature = this.u8();
    const fields: PackValue[] = [];
    for (let i = 0; i < n; i++) fields.push(this.unpack());
    this.depth--;
    return new Structure(signature, fields);
  }

  private u8(): number {
    return this.read(1)[0]!;
  }

  private u16(): number {
    return this.read(2).readUInt16BE(0);
  }

  private u32(): number {
    return this.read(4).readUInt32BE(0);
  }

  private read(n: number): Buffer {
    if (this.pos + n > this.buf.length) throw new UnpackError(`the message ends inside a value (byte ${this.pos}, ${n} more wanted)`);
    const out = this.buf.subarray(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }
}

/** The one value a buffer holds. */
export function unpackValue(buf: Buffer): PackValue {
  const u = new Unpacker(buf);
  const v = u.unpack();
  if (!u.done) throw new UnpackError('bytes left over after the value');
  return v;
}
