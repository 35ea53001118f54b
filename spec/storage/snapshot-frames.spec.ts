import { expect } from 'chai';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Collection } from '../../storage/collection.js';
import { CorruptDataError } from '../../storage/errors.js';
import type { CollectionConfig } from '../../storage/events/types.js';
import { decodeSnapshot, FRAME_BYTES, SNAPSHOT_FORMAT_VERSION } from '../../storage/snapshot/snapshot-codec.js';
import { SnapshotFiles, snapshotFileName } from '../../storage/snapshot/snapshot-files.js';
import { SnapshotFrameCheck } from '../../storage/snapshot/snapshot-frames.js';
import { capturedParts } from '../helpers/captured-parts.js';
import { tempDir } from '../helpers/temp-dir.js';
import { randomVectors } from '../helpers/vectors.js';

const DIM = 8;
const config: CollectionConfig = { size: DIM, distance: 'Cosine', m: 8, m0: 16, efConstruct: 40, ml: 1 / Math.log(8) };

/** Two collections cut into frames of `frameBytes`, as one array. */
function framedSnapshot(opId: number, frameBytes: number): Uint8Array {
  const a = new Collection('a', config, 1);
  a.upsert(randomVectors(50, DIM, 3).map((vector, id) => ({ id, vector, payload: { id }, labels: [] })));
  a.indexSome(25);
  a.graph.add(1, 2, 'R', 1);
  const b = new Collection('b', config, 2);
  b.upsert(randomVectors(30, DIM, 4).map((vector, id) => ({ id, vector, payload: {}, labels: [] })));
  // A Uint8Array of its own (a Buffer's slice() is a view of a shared pool).
  return new Uint8Array(Buffer.concat(capturedParts(new Map([['a', a], ['b', b]]), opId, frameBytes)));
}

/** Feeds `bytes` in pieces of `piece` and ends; answers the header or the error thrown. */
function check(bytes: Uint8Array, piece = bytes.length): ReturnType<SnapshotFrameCheck['end']> | Error {
  const c = new SnapshotFrameCheck();
  try {
    for (let at = 0; at < bytes.length; at += piece) c.feed(bytes.subarray(at, at + piece));
    return c.end();
  } catch (err) {
    return err as Error;
  }
}

const refuses = (decode: () => unknown): boolean => {
  try {
    decode();
    return false;
  } catch (err) {
    if (!(err instanceof CorruptDataError)) throw err;
    return true;
  }
};

describe('storage/snapshot-frames', () => {
  const bytes = framedSnapshot(41, 200);

  it('passes a snapshot fed in pieces of any size, and answers its header', () => {
    for (const piece of [1, 7, 9, 200, 4096, bytes.length]) expect(check(bytes, piece), `pieces of ${piece}`).to.deep.equal({ version: SNAPSHOT_FORMAT_VERSION, opId: 41, count: 2 });
  });

  it('refuses a damaged byte exactly where decoding refuses it (every byte of a snapshot, flipped in turn)', () => {
    let refused = 0;
    for (let at = 0; at < bytes.length; at++) {
      const damaged = bytes.slice();
      damaged[at]! ^= 0x10;
      const verdict = check(damaged, 13);
      const decodeRefuses = refuses(() => decodeSnapshot(damaged));
      expect(verdict instanceof CorruptDataError, `byte ${at}: ${verdict instanceof Error ? verdict.message : 'passed'}`).to.equal(decodeRefuses);
      if (decodeRefuses) refused++;
    }
    // Only the header's two reserved bytes are read by neither.
    expect(refused).to.equal(bytes.length - 2);
  });

  it('refuses a snapshot cut short anywhere, and bytes after its trailer', () => {
    for (let length = 0; length < bytes.length; length++) {
      const verdict = check(bytes.subarray(0, length), 64);
      expect(verdict, `cut at ${length}`).to.be.instanceOf(CorruptDataError);
    }
    expect((check(bytes.subarray(0, 100)) as Error).message).to.match(/the snapshot ends early, after 100 bytes \(in its snapshot collection 1\)/);
    const longer = new Uint8Array(bytes.length + 1);
    longer.set(bytes);
    expect((check(longer, 5) as Error).message).to.match(/unexpected bytes after the snapshot trailer, at byte/);
  });

  it('refuses a frame longer than a frame may be at its header, before its bytes come', () => {
    const head = bytes.subarray(0, 20 + 9).slice();
    new DataView(head.buffer).setUint32(20 + 1, FRAME_BYTES + 1, true);
    const c = new SnapshotFrameCheck();
    expect(() => c.feed(head)).to.throw(CorruptDataError, `snapshot collection 1 is damaged (a frame of ${FRAME_BYTES + 1} bytes, more than ${FRAME_BYTES})`);
  });

  it('finds the newest whole snapshot in a directory without decoding one, skipping a damaged one as loading does', () => {
    const dir = tempDir();
    try {
      writeFileSync(join(dir.path, snapshotFileName(41)), bytes);
      const newer = framedSnapshot(50, 200);
      newer[newer.length >> 1]! ^= 0x40;
      writeFileSync(join(dir.path, snapshotFileName(50)), newer);
      const skipped: string[] = [];
      const files = new SnapshotFiles(dir.path, (file, reason) => skipped.push(`${file}: ${reason}`));
      expect(files.newestWhole()).to.equal(41);
      expect(skipped).to.have.length(1);
      expect(skipped[0]).to.match(/^snapshot-0{14}50\.snap: snapshot collection \d is damaged \(its checksum does not match\)$/);
      expect(files.loadNewest()!.opId, 'where loading starts from').to.equal(41);
      expect(files.newestWhole(40)).to.equal(null);
    } finally {
      dir.remove();
    }
  });

  it('passes the snapshots older formats wrote (format 1: one block a collection; format 6)', () => {
    for (const [file, version] of [['snapshot-v1.snap', 1], ['snapshot-v6.snap', 6]] as const) {
      const fixture = new Uint8Array(readFileSync(new URL(`../../../spec/fixtures/${file}`, import.meta.url)));
      const head = check(fixture, 33);
      const decoded = decodeSnapshot(fixture);
      expect(head, file).to.deep.equal({ version, opId: decoded.opId, count: decoded.collections.size });
    }
  });
});
