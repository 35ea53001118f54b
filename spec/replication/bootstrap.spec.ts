import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { createReadStream, readdirSync, readFileSync, statSync } from 'node:fs';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { BOOTSTRAP_OPERATION_HEADER, BOOTSTRAP_PATH, bootstrapFromPrimary } from '../../replication/bootstrap.js';
import { Collection } from '../../storage/collection.js';
import type { CollectionConfig } from '../../storage/events/types.js';
import { MemoryLog } from '../../storage/log/memory-log.js';
import { writeSnapshot } from '../../storage/snapshot/snapshot-codec.js';
import { SnapshotFiles, snapshotFileName } from '../../storage/snapshot/snapshot-files.js';
import { tempDir } from '../helpers/temp-dir.js';

const DIM = 128;
const config: CollectionConfig = { size: DIM, distance: 'Euclid', m: 8, m0: 16, efConstruct: 16, ml: 1 / Math.log(8) };

/** A snapshot file of `points` unindexed vectors of DIM floats at operation `opId`, written where `dir` says. */
async function snapshotOf(dir: string, opId: number, points: number): Promise<string> {
  const c = new Collection('big', config, 1);
  const vector = new Float32Array(DIM);
  for (let from = 0; from < points; from += 10_000) {
    c.upsert(Array.from({ length: Math.min(10_000, points - from) }, (_, i) => {
      vector.fill((from + i) % 97);
      return { id: from + i, vector, payload: {}, labels: [] };
    }));
  }
  await new SnapshotFiles(dir).write(opId, (out) => void writeSnapshot(new Map([['big', c]]), opId, out));
  return join(dir, snapshotFileName(opId));
}

/**
 * Stands in for a primary's GET /replication/bootstrap (the real route needs a NATS server; the
 * replication suite runs it): answers the snapshot in `file` at `opId`, as `answer` says for
 * each request in turn.
 */
function standInPrimary(file: string, opId: number, answer: (n: number, res: ServerResponse) => boolean): Promise<{ url: string; server: Server; asked: () => number }> {
  let asked = 0;
  const server = createServer((req, res) => {
    if (req.url === '/warm') return void res.end('{}');
    expect(req.url).to.equal(BOOTSTRAP_PATH);
    res.setHeader(BOOTSTRAP_OPERATION_HEADER, String(opId));
    res.setHeader('content-length', statSync(file).size);
    if (answer(++asked, res)) createReadStream(file).pipe(res);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server, asked: () => asked })));
}

const whole = (): boolean => true;

describe('replication/bootstrap', () => {
  const source = tempDir();
  let file: string;
  before(async () => {
    file = await snapshotOf(source.path, 77, 2_000);
  });
  after(() => source.remove());

  it('installs the primary\'s snapshot as it arrives, byte for byte, with the log\'s counter at its operation_id', async () => {
    const primary = await standInPrimary(file, 77, whole);
    const dir = tempDir();
    try {
      const log = new MemoryLog();
      const files = new SnapshotFiles(dir.path);
      expect(await bootstrapFromPrimary({ primaryUrl: primary.url, apiKey: null }, log, files, () => undefined)).to.equal(77);
      expect(readdirSync(dir.path)).to.deep.equal([snapshotFileName(77)]);
      expect(readFileSync(join(dir.path, snapshotFileName(77))).equals(readFileSync(file))).to.equal(true);
      expect(log.lastOperationId).to.equal(77);
      expect([...files.loadNewest()!.collections.get('big')!.store.sortedIds()]).to.have.length(2_000);
    } finally {
      primary.server.close();
      dir.remove();
    }
  });

  it('asks again for a snapshot whose answer stops short, keeping nothing of the first', async () => {
    const primary = await standInPrimary(file, 77, (n, res) => {
      if (n > 1) return true;
      // Half the snapshot, then the connection drops.
      res.write(readFileSync(file).subarray(0, statSync(file).size >> 1), () => res.destroy());
      return false;
    });
    const dir = tempDir();
    const waits: string[] = [];
    try {
      expect(await bootstrapFromPrimary({ primaryUrl: primary.url, apiKey: null }, new MemoryLog(), new SnapshotFiles(dir.path), (reason) => waits.push(reason))).to.equal(77);
      expect(primary.asked()).to.equal(2);
      expect(waits).to.have.length(1);
      expect(waits[0]).to.match(/^the primary's snapshot stopped arriving \(.+\); asking for it again$/);
      expect(readdirSync(dir.path)).to.deep.equal([snapshotFileName(77)]);
      expect(readFileSync(join(dir.path, snapshotFileName(77))).equals(readFileSync(file))).to.equal(true);
    } finally {
      primary.server.close();
      dir.remove();
    }
  });

  it('refuses a damaged snapshot, or one at another operation_id than its answer names, and leaves no file', async () => {
    const damaged = readFileSync(file);
    damaged[damaged.length >> 1]! ^= 1;
    const cases: [string, number, (n: number, res: ServerResponse) => boolean, RegExp][] = [
      ['damaged', 77, (_, res) => {
        res.end(damaged);
        return false;
      }, /snapshot collection 1 is damaged \(its checksum does not match\)/],
      ['another operation_id', 78, whole, /the primary's snapshot is at operation 77, while its answer names 78/],
    ];
    for (const [what, opId, answer, message] of cases) {
      const primary = await standInPrimary(file, opId, answer);
      const dir = tempDir();
      const log = new MemoryLog();
      try {
        const err = await bootstrapFromPrimary({ primaryUrl: primary.url, apiKey: null }, log, new SnapshotFiles(dir.path), () => undefined).then(() => null, (e: Error) => e);
        expect(err?.message, what).to.match(message);
        expect(readdirSync(dir.path), what).to.deep.equal([]);
        expect(log.lastOperationId, what).to.equal(0);
        expect(primary.asked(), what).to.equal(1);
      } finally {
        primary.server.close();
        dir.remove();
      }
    }
  });

  it('holds a piece of the snapshot at a time: a replica\'s memory grows by far less than the snapshot it installs', async function () {
    this.timeout(120_000);
    const big = tempDir();
    const dir = tempDir();
    // 300,000 x 128 floats: a snapshot of about 170 MB.
    const bigFile = await snapshotOf(big.path, 5, 300_000);
    const size = statSync(bigFile).size;
    const primary = await standInPrimary(bigFile, 5, whole);
    try {
      const child = new URL('./bootstrap-child.js', import.meta.url).pathname;
      const { stdout } = await promisify(execFile)(process.execPath, [child, primary.url, dir.path], { maxBuffer: 1 << 20 });
      const { opId, before, peak } = JSON.parse(stdout) as { opId: number; before: number; peak: number };
      expect(opId).to.equal(5);
      expect(statSync(join(dir.path, snapshotFileName(5))).size).to.equal(size);
      // Held whole, the snapshot alone would take `size`, and decoding it to check it as much again. What
      // grows here is mostly the pieces already written, freed at the next collection (V8 runs one once
      // some 64 MB of them are outside its heap): about 55 MB, whatever the size.
      expect(peak - before, `grew ${((peak - before) / 2 ** 20).toFixed(1)} MB for a snapshot of ${(size / 2 ** 20).toFixed(1)} MB`).to.be.below(size / 2);
    } finally {
      primary.server.close();
      big.remove();
      dir.remove();
    }
  });
});
