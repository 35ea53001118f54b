import { expect } from 'chai';
import { closeSync, existsSync, openSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Collection } from '../../storage/collection.js';
import { nextTurn, runInSlices } from '../../storage/codec/slices.js';
import { CorruptDataError } from '../../storage/errors.js';
import { checkReadsBack, FileOutput } from '../../storage/snapshot/file-output.js';
import { captureSnapshot, encodeSnapshot } from '../../storage/snapshot/snapshot-codec.js';
import { SnapshotFiles, snapshotFileName } from '../../storage/snapshot/snapshot-files.js';
import { tempDir } from '../helpers/temp-dir.js';
import { randomVectors } from '../helpers/vectors.js';

/** A state of about 4 MiB: many of FileOutput's 256 KiB pieces, more than it keeps in flight. */
function state(): Map<string, Collection> {
  const c = new Collection('c', { size: 128, distance: 'Euclid', m: 8, m0: 16, efConstruct: 16, ml: 1 / Math.log(8) }, 5);
  c.upsert(randomVectors(8_000, 128, 3).map((vector, id) => ({ id, vector, payload: { id }, labels: id % 2 ? ['Odd'] : [] })));
  while (c.indexSome(10_000));
  return new Map([['c', c]]);
}

const ENOSPC = (err: unknown): string | undefined => (err as NodeJS.ErrnoException).code;

describe('storage/snapshot: FileOutput (pieces written and hashed on the threadpool)', () => {
  it('writes a snapshot encoded in slices into the bytes encoded in memory, and it reads back', async () => {
    const dir = tempDir();
    try {
      const collections = state();
      const inMemory = Buffer.concat(encodeSnapshot(collections, 9));
      expect(inMemory.length).to.be.above(3 * 2 ** 20);
      const files = new SnapshotFiles(dir.path);
      const capture = captureSnapshot(collections, 9);
      await files.write(9, async (out) => {
        await runInSlices(capture.write(out), 1, nextTurn);
      });
      capture.release();
      expect(readFileSync(join(dir.path, snapshotFileName(9))).equals(inMemory)).to.equal(true);
      expect(readdirSync(dir.path)).to.deep.equal([snapshotFileName(9)]);
    } finally {
      dir.remove();
    }
  });

  it('fails the snapshot when the disk is full: rejected with the error, no temporary file left, and the next one is written', async () => {
    const dir = tempDir();
    try {
      const collections = state();
      const files = new SnapshotFiles(dir.path);
      // Writes into /dev/full fail with ENOSPC, as on a full disk; the temporary file is the link.
      symlinkSync('/dev/full', join(dir.path, `${snapshotFileName(4)}.tmp`));
      const capture = captureSnapshot(collections, 4);
      const failed = await files.write(4, async (out) => void (await runInSlices(capture.write(out), 1, nextTurn))).then(
        () => null,
        (err: unknown) => err,
      );
      capture.release();
      expect(ENOSPC(failed)).to.equal('ENOSPC');
      expect(readdirSync(dir.path)).to.deep.equal([]);
      expect(files.list()).to.deep.equal([]);

      await files.write(5, (out) => void encodeSnapshot(collections, 5).forEach((chunk) => out.append(chunk)));
      expect(files.list()).to.deep.equal([5]);
      expect(files.loadNewest()!.collections.get('c')!.store.liveCount).to.equal(8_000);
    } finally {
      dir.remove();
    }
  });

  it('a write that fails on the threadpool fails the next append, or else finish, and settles before the descriptor may close', async () => {
    const fd = openSync('/dev/full', 'w');
    try {
      const out = new FileOutput(fd);
      out.append(new Uint8Array(300 * 1024));
      await out.settled();
      expect(() => out.append(Uint8Array.of(1))).to.throw().with.property('code', 'ENOSPC');
      const second = new FileOutput(fd);
      second.append(new Uint8Array(1024));
      expect(ENOSPC(await second.finish().then(() => null, (err: unknown) => err))).to.equal('ENOSPC');
    } finally {
      closeSync(fd);
    }
  });

  it('checks a file back piece by piece: a byte changed after it was written is found', async () => {
    const dir = tempDir();
    try {
      const path = join(dir.path, 'f');
      const fd = openSync(path, 'w');
      const out = new FileOutput(fd);
      const bytes = new Uint8Array(3 * 2 ** 20 + 17).map((_, i) => (i * 7) & 0xff);
      const header = out.reserve(8);
      out.append(bytes);
      header(Uint8Array.of(1, 2, 3, 4, 5, 6, 7, 8));
      const written = await out.finish();
      closeSync(fd);
      await checkReadsBack(path, written);
      const onDisk = readFileSync(path);
      expect(onDisk.subarray(8).equals(bytes)).to.equal(true);
      for (const at of [3, 8 + 2 ** 20 + 5, onDisk.length - 1]) {
        const changed = Buffer.from(onDisk);
        changed[at]! ^= 1;
        writeFileSync(path, changed);
        const err = await checkReadsBack(path, written).then(() => null, (e: unknown) => e);
        expect(err, `byte ${at}`).to.be.instanceOf(CorruptDataError);
      }
      expect(existsSync(path)).to.equal(true);
    } finally {
      dir.remove();
    }
  });
});
