import { expect } from 'chai';
import fc from 'fast-check';
import { chunkMessage, Dechunker } from '../../bolt/chunking.js';
import { chooseVersion } from '../../bolt/handshake.js';
import { packValue } from '../../bolt/packstream/encoder.js';
import { UnpackError, unpackValue } from '../../bolt/packstream/decoder.js';
import { PackFloat, Structure, type PackValue } from '../../bolt/packstream/structure.js';

const SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/** Any PackStream value; integers past 2^53 are bigints (as the decoder gives them back), -0 is left out. */
const packValues = fc.letrec<{ value: PackValue }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constant(null),
    fc.boolean(),
    fc.integer({ min: Number.MIN_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER }).filter((n) => !Object.is(n, -0)),
    fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }).filter((n) => n > SAFE || n < -SAFE),
    // A whole float is a PackFloat both ways (a plain number with no fraction packs as an Integer).
    fc.double().filter((d) => !Object.is(d, -0)).map((d) => (Number.isInteger(d) ? new PackFloat(d) : d)),
    fc.string({ unit: 'grapheme', maxLength: 40 }),
    fc.uint8Array({ maxLength: 300 }),
    fc.array(tie('value'), { maxLength: 20 }),
    fc.dictionary(fc.string({ maxLength: 8 }), tie('value'), { maxKeys: 20 }),
    fc.record({ signature: fc.integer({ min: 0, max: 127 }), fields: fc.array(tie('value'), { maxLength: 15 }) }).map(({ signature, fields }) => new Structure(signature, fields)),
  ),
})).value;

describe('bolt: PackStream', () => {
  it('decodes what it encodes, for nested values of every type', () => {
    fc.assert(
      fc.property(packValues, (v) => {
        expect(unpackValue(packValue(v))).to.deep.equal(v);
      }),
      { numRuns: 500 },
    );
  });

  it('uses the smallest integer encoding, with the bytes the specification gives', () => {
    const hex = (v: PackValue) => packValue(v).toString('hex');
    expect(hex(1)).to.equal('01');
    expect(hex(-16)).to.equal('f0');
    expect(hex(-17)).to.equal('c8ef');
    expect(hex(128)).to.equal('c90080');
    expect(hex(-32769)).to.equal('caffff7fff');
    expect(hex(2 ** 31)).to.equal('cb0000000080000000');
    expect(hex(2n ** 63n - 1n)).to.equal('cb7fffffffffffffff');
    expect(hex(1.5)).to.equal('c13ff8000000000000');
    expect(hex('a')).to.equal('8161');
    expect(hex({ a: true })).to.equal('a18161c3');
    expect(hex(new Structure(0x4e, [1]))).to.equal('b14e01');
    expect(() => packValue(2n ** 63n)).to.throw(/64 bits/);
  });

  it('round-trips sizes on each boundary of the tiny, 8, 16 and 32-bit headers', () => {
    for (const n of [15, 16, 255, 256, 65535, 65536]) {
      const s = 'x'.repeat(n);
      expect(unpackValue(packValue(s))).to.equal(s);
      const list = Array.from({ length: n }, (_, i) => i % 7);
      expect(unpackValue(packValue(list))).to.deep.equal(list);
      const bytes = new Uint8Array(n).fill(3);
      expect(unpackValue(packValue(bytes))).to.deep.equal(bytes);
    }
    const map = Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`k${i}`, i]));
    expect(unpackValue(packValue(map))).to.deep.equal(map);
  });

  it('refuses truncated input, unknown markers and nesting past the limit, and any bytes at all with an UnpackError alone', () => {
    expect(() => unpackValue(packValue('hello').subarray(0, 3))).to.throw(/ends inside a value/);
    expect(() => unpackValue(Buffer.from([0xe0]))).to.throw(/unknown PackStream marker/);
    expect(() => unpackValue(Buffer.alloc(100_000, 0x91))).to.throw(UnpackError, /nest more than 1000 levels/);
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (bytes) => {
        try {
          unpackValue(Buffer.from(bytes));
        } catch (err) {
          expect(err).to.be.instanceOf(UnpackError);
        }
      }),
      { numRuns: 2000 },
    );
  });
});

describe('bolt: framing and version negotiation', () => {
  it('cuts a large message into chunks and puts it together from any split of the bytes', () => {
    const message = Buffer.from(Array.from({ length: 200_000 }, (_, i) => i % 251));
    const framed = Buffer.concat([chunkMessage(message), Buffer.from([0, 0]), chunkMessage(Buffer.from('second'))]);
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: framed.length - 1 }), { maxLength: 10 }), (cuts) => {
        const at = [0, ...[...new Set(cuts)].sort((a, b) => a - b), framed.length];
        const d = new Dechunker(1 << 20);
        const out: Buffer[] = [];
        for (let i = 0; i + 1 < at.length; i++) out.push(...d.feed(framed.subarray(at[i], at[i + 1])));
        expect(out.map((b) => b.length)).to.deep.equal([200_000, 6]);
        expect(out[0]!.equals(message)).to.equal(true);
      }),
      { numRuns: 30 },
    );
    expect(() => new Dechunker(1000).feed(chunkMessage(Buffer.alloc(2000)))).to.throw(/larger than 1000 bytes/);
  });

  it('picks the newest version both sides speak from the offered ranges', () => {
    const offer = (...slots: [number, number, number][]) => {
      const b = Buffer.alloc(20);
      b.writeUInt32BE(0x6060b017, 0);
      slots.forEach(([major, minor, range], i) => b.writeUInt32BE((range << 16) | (minor << 8) | major, 4 + i * 4));
      return b;
    };
    // neo4j-driver 6: the manifest handshake, 5.8 down to 5.0, 4.4 down to 4.2, 3.0
    expect(chooseVersion(offer([255, 1, 0], [5, 8, 8], [4, 4, 2], [3, 0, 0]))).to.deep.equal({ major: 5, minor: 8 });
    expect(chooseVersion(offer([5, 5, 1])), '5.5 never shipped: 5.4 instead').to.deep.equal({ major: 5, minor: 4 });
    expect(chooseVersion(offer([5, 7, 0]))).to.deep.equal({ major: 5, minor: 7 });
    expect(chooseVersion(offer([5, 2, 2]))).to.deep.equal({ major: 5, minor: 2 });
    expect(chooseVersion(offer([4, 4, 0]))).to.deep.equal({ major: 4, minor: 4 });
    expect(chooseVersion(offer([5, 12, 2], [4, 3, 1])), 'only 5.10 to 5.12 and 4.2 to 4.3: none in common').to.equal(null);
  });
});
