import { expect } from 'chai';
import { ByteReader } from '../../storage/codec/byte-reader.js';
import { chunkSource, pulledSource } from '../../storage/codec/byte-source.js';
import { ByteWriter } from '../../storage/codec/byte-writer.js';
import { CorruptDataError } from '../../storage/errors.js';

type Value = ['u8' | 'u32' | 'f64' | 'str', number | string] | ['floats', Float32Array];

/** Numbers, strings of 0-36 bytes and runs of floats, written one after another. */
function written(): { bytes: Uint8Array; values: Value[] } {
  const w = new ByteWriter(16);
  const values: Value[] = [];
  for (let i = 0; i < 2000; i++) {
    const kind = i % 5;
    if (kind === 0) values.push(['u32', i]), w.u32(i);
    if (kind === 1) values.push(['str', 'é'.repeat(i % 19)]), w.str('é'.repeat(i % 19));
    if (kind === 2) values.push(['f64', i / 3]), w.f64(i / 3);
    if (kind === 3) values.push(['u8', i & 255]), w.u8(i & 255);
    if (kind === 4) {
      const floats = Float32Array.from({ length: i % 40 }, (_, k) => k * i);
      values.push(['floats', floats]);
      w.floats(floats);
    }
  }
  return { bytes: w.finish().slice(), values };
}

function readAll(r: ByteReader, values: Value[]): void {
  for (const [kind, value] of values) {
    if (kind === 'floats') {
      const got = new Float32Array((value as Float32Array).length);
      r.floatsInto(got, 0, got.length);
      expect(got).to.deep.equal(value);
    } else expect(r[kind]()).to.equal(value);
  }
  r.expectEnd();
}

function framesOf(bytes: Uint8Array, size: number): Uint8Array[] {
  return Array.from({ length: Math.ceil(bytes.length / size) }, (_, i) => bytes.slice(i * size, (i + 1) * size));
}

describe('storage/byte reader over frames', () => {
  const { bytes, values } = written();

  for (const size of [1, 3, 7, 64, 1000]) {
    it(`reads every value the same from frames of ${size} bytes, values straddling them included`, () => {
      const frames = framesOf(bytes, size);
      let next = 1;
      readAll(new ByteReader(frames[0]!, 0, frames[0]!.length, () => frames[next++] ?? null), values);
    });
  }

  it('fails a read past the last frame, and expectEnd with bytes left in a later frame', () => {
    const frames = framesOf(bytes, 100);
    let next = 1;
    const short = new ByteReader(frames[0]!, 0, 100, () => (next < 3 ? frames[next++]! : null));
    expect(() => readAll(short, values)).to.throw(CorruptDataError, /record ends early/);
    next = 1;
    const long = new ByteReader(frames[0]!, 0, 100, () => frames[next++] ?? null);
    for (let i = 0; i < 250; i++) long.u8();
    expect(() => long.expectEnd()).to.throw(CorruptDataError, /unexpected bytes/);
  });

  it('reads a source of chunks in order, views within a chunk and copies across them, and knows its end', () => {
    const source = chunkSource([bytes.subarray(0, 10), new Uint8Array(0), bytes.subarray(10, 25), bytes.subarray(25)]);
    expect(Array.from(source.read(4))).to.deep.equal(Array.from(bytes.subarray(0, 4)));
    const across = source.read(20);
    expect(Array.from(across)).to.deep.equal(Array.from(bytes.subarray(4, 24)));
    expect(source.read(bytes.length - 25).length).to.equal(bytes.length - 25);
    expect(source.done).to.equal(false);
    source.read(1);
    expect(source.done).to.equal(true);
    expect(() => source.read(1)).to.throw(CorruptDataError, /ends early/);
  });

  it('reads chunks pulled as it needs them, taking none before a read wants it, and knows its end', () => {
    const chunks = [bytes.subarray(0, 10), new Uint8Array(0), bytes.subarray(10, 25), bytes.subarray(25)];
    let pulled = 0;
    const source = pulledSource(() => (pulled < chunks.length ? chunks[pulled++]! : (pulled++, null)));
    expect(pulled).to.equal(0);
    expect(Array.from(source.read(4))).to.deep.equal(Array.from(bytes.subarray(0, 4)));
    expect(pulled).to.equal(1);
    expect(Array.from(source.read(20))).to.deep.equal(Array.from(bytes.subarray(4, 24)));
    expect(pulled).to.equal(3);
    expect(source.read(0).length).to.equal(0);
    expect(Array.from(source.read(bytes.length - 25))).to.deep.equal(Array.from(bytes.subarray(24, bytes.length - 1)));
    expect(source.done).to.equal(false);
    source.read(1);
    expect(source.done).to.equal(true);
    expect(() => source.read(1)).to.throw(CorruptDataError, /ends early: needed 1 bytes at byte/);
    // Pieces of 7 bytes read back as one array.
    const again = pulledSource(((rest) => () => rest.shift() ?? null)(Array.from({ length: Math.ceil(bytes.length / 7) }, (_, i) => bytes.subarray(i * 7, i * 7 + 7))));
    expect(Array.from(again.read(bytes.length))).to.deep.equal(Array.from(bytes));
  });
});
