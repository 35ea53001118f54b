import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { crc32 as zlibCrc32 } from 'node:zlib';
import { crc32 } from '../../storage/codec/crc32.js';

describe('storage/codec: CRC-32', () => {
  it("gives zlib's CRC-32 for every length and alignment (slicing by 8, and the bytes left over)", () => {
    expect(crc32(new TextEncoder().encode('123456789'))).to.equal(0xcbf43926);
    for (let n = 0; n < 200; n++) {
      const bytes = randomBytes(n * 3 + 1);
      const start = n % 7;
      const end = bytes.length - (n % 5);
      if (end < start) continue;
      expect(crc32(bytes, start, end), `length ${bytes.length}, ${start}..${end}`).to.equal(zlibCrc32(bytes.subarray(start, end)));
    }
  });

  it('goes on from the CRC of the bytes before, so a stream fed in pieces gets the CRC of the whole', () => {
    const bytes = randomBytes(10_000);
    let crc = 0;
    for (let at = 0; at < bytes.length; at += 997) crc = crc32(bytes, at, Math.min(bytes.length, at + 997), crc);
    expect(crc).to.equal(zlibCrc32(bytes));
  });
});
