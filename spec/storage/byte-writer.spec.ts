import { expect } from 'chai';
import { ByteReader } from '../../storage/codec/byte-reader.js';
import { ByteWriter } from '../../storage/codec/byte-writer.js';

/** What str() must write: the u32 byte length, then TextEncoder's bytes. */
function expected(s: string): Uint8Array {
  const bytes = new TextEncoder().encode(s);
  const out = new Uint8Array(4 + bytes.length);
  new DataView(out.buffer).setUint32(0, bytes.length, true);
  out.set(bytes, 4);
  return out;
}

describe('storage/codec: ByteWriter strings', () => {
  const strings = [
    '',
    'rp',
    'é中',
    '😀 surrogate pairs 𝄞',
    'a lone high surrogate \ud800 and a lone low one \udc00',
    '{"group":3}',
    'é'.repeat(4096),
    '中'.repeat(4097),
    'x'.repeat(100_000),
  ];

  it("writes TextEncoder's UTF-8 after its byte length, for short strings (in place) and long ones, from a small buffer that grows", () => {
    for (const s of strings) {
      const w = new ByteWriter(1).u8(7).str(s).u8(9);
      const out = w.finish();
      expect(out[0]).to.equal(7);
      expect(Buffer.from(out.subarray(1, out.length - 1)).equals(Buffer.from(expected(s))), `a string of ${s.length} units`).to.equal(true);
      expect(out[out.length - 1]).to.equal(9);
    }
  });

  it('reads back what it wrote, one string after another', () => {
    const w = new ByteWriter(16);
    for (const s of strings) w.str(s);
    const r = new ByteReader(w.finish());
    for (const s of strings) expect(r.str()).to.equal(s.replace(/[\ud800-\udfff]/g, (c, at: number) => (isPaired(s, at) ? c : '\ufffd')));
  });
});

/** Whether the surrogate at `at` is half of a pair (a lone one is written as U+FFFD). */
function isPaired(s: string, at: number): boolean {
  const c = s.charCodeAt(at);
  if (c < 0xdc00) return at + 1 < s.length && s.charCodeAt(at + 1) >= 0xdc00 && s.charCodeAt(at + 1) <= 0xdfff;
  return at > 0 && s.charCodeAt(at - 1) >= 0xd800 && s.charCodeAt(at - 1) < 0xdc00;
}
