import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { crc32 as zlibCrc32 } from 'node:zlib';
import { crc32, portableCrc32 } from '../../storage/codec/crc32.js';

describe('storage/codec: CRC-32', () => {
  it("portable: gives zlib's CRC-32 for every length and alignment (slicing by 8, and the bytes left over)", () => {
    expect(portableCrc32(new TextEncoder().encode('123456789'))).to.equal(0xcbf43926);
    for (let n = 0; n < 200; n++) {
      const bytes = randomBytes(n * 3 + 1);
      const start = n % 7;
      const end = bytes.length - (n % 5);
      if (end < start) continue;
      expect(portableCrc32(bytes, start, end), `length ${bytes.length}, ${start}..${end}`).to.equal(zlibCrc32(bytes.subarray(start, end)));
    }
  });

  it('goes on from the CRC of the bytes before, so a stream fed in pieces gets the CRC of the whole (portable, and the one in use)', () => {
    const bytes = randomBytes(10_000);
    for (const f of [portableCrc32, crc32]) {
      let crc = 0;
      for (let at = 0; at < bytes.length; at += 997) crc = f(bytes, at, Math.min(bytes.length, at + 997), crc);
      expect(crc).to.equal(zlibCrc32(bytes));
    }
  });

  it('the one in use gives the portable CRC for every range, whole arrays and views into larger ones', () => {
    const bytes = randomBytes(5_000);
    const view = bytes.subarray(13, 4_000);
    for (let n = 0; n < 100; n++) {
      const start = (n * 37) % 1_000;
      const end = view.length - ((n * 11) % 900);
      expect(crc32(view, start, end, n), `${start}..${end}`).to.equal(portableCrc32(view, start, end, n));
    }
    expect(crc32(view)).to.equal(portableCrc32(view));
  });
});
