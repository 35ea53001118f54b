import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync, truncateSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import type { DbEvent } from '../../storage/events/types.js';
import { checkLmdbFileLength, isDamagedFile, lmdbShortfall } from '../../storage/log/lmdb-file-check.js';
import { LmdbLog } from '../../storage/log/lmdb-log.js';
import { chainHash, checkChain, GENESIS, hex } from '../../storage/log/chain.js';
import { chainHashOf, frameChained, frameRecord, unframeRecord } from '../../storage/log/record.js';
import { tempDir } from '../helpers/temp-dir.js';

const del = (name: string): DbEvent => ({ type: 'delete_collection', name });

describe('storage/log LmdbLog', () => {
  let dir: ReturnType<typeof tempDir>;
  beforeEach(() => (dir = tempDir()));
  afterEach(() => dir.remove());

  it('assigns strictly increasing operation_ids that continue after reopening', async () => {
    let log = LmdbLog.open(dir.path);
    const first = log.append(del('a'));
    const second = log.append(del('b'));
    await Promise.all([first.durable, second.durable]);
    expect([first.opId, second.opId]).to.deep.equal([1, 2]);
    await log.close();

    log = LmdbLog.open(dir.path);
    expect(log.lastOperationId).to.equal(2);
    const third = log.append(del('c'));
    await third.durable;
    expect(third.opId).to.equal(3);
    expect([...log.read()].map((e) => [e.opId, e.event])).to.deep.equal([
      [1, del('a')],
      [2, del('b')],
      [3, del('c')],
    ]);
    expect([...log.read(2, 2)].map((e) => e.opId)).to.deep.equal([2]);
    await log.close();
  });

  it('chains every entry to the one before with SHA-256, across a reopen, and names the history by its head hash', async () => {
    let log = LmdbLog.open(dir.path);
    await Promise.all([log.append(del('a')).durable, log.append(del('b')).durable]);
    await log.close();
    log = LmdbLog.open(dir.path);
    await log.append(del('c')).durable;
    const raw = [...log.readRaw()];
    let expected: Uint8Array = GENESIS;
    for (const { opId, record } of raw) {
      expected = chainHash(expected, opId, unframeRecord(record, opId));
      expect(hex(chainHashOf(record)!), `entry ${opId}`).to.equal(hex(expected));
    }
    expect(log.headHash).to.equal(hex(expected));
    expect(checkChain(raw)).to.deep.include({ linked: 2, anchor: 1, broken: null });
    await log.close();
  });

  it('finds a changed, dropped or reordered entry, and an unchained entry after chained ones, even with a good checksum', async () => {
    const log = LmdbLog.open(dir.path);
    await Promise.all(['a', 'b', 'c', 'd'].map((n) => log.append(del(n)).durable));
    const raw = [...log.readRaw()];
    await log.close();
    const body = (name: string) => unframeRecord(frameRecord(new Uint8Array(Buffer.from(JSON.stringify(name)))), 0);
    // Entry 2 rewritten with a new body and its own checksum, keeping its stored hash.
    const changed = raw.map((e) => (e.opId === 2 ? { opId: 2, record: frameChained(body('x'), chainHashOf(e.record)!) } : e));
    expect(checkChain(changed).broken?.opId).to.equal(2);
    expect(checkChain(raw.filter((e) => e.opId !== 3)).broken?.opId).to.equal(4);
    expect(checkChain([raw[0]!, raw[2]!, raw[1]!, raw[3]!]).broken).to.not.equal(null);
    const downgraded = raw.map((e) => (e.opId === 3 ? { opId: 3, record: frameRecord(unframeRecord(e.record, 3)) } : e));
    expect(checkChain(downgraded).broken).to.deep.include({ opId: 3 });
    // Entries written before the log was chained are passed over; the chain starts at the first chained one.
    const older = raw.map((e) => (e.opId <= 2 ? { opId: e.opId, record: frameRecord(unframeRecord(e.record, e.opId)) } : e));
    expect(checkChain(older)).to.deep.include({ anchor: 3, linked: 1, broken: null });
  });

  it('takes many concurrent appends, all durable, in id order', async () => {
    const log = LmdbLog.open(dir.path);
    const appended = Array.from({ length: 500 }, (_, i) => log.append(del(`c${i}`)));
    await Promise.all(appended.map((a) => a.durable));
    expect(appended.map((a) => a.opId)).to.deep.equal(Array.from({ length: 500 }, (_, i) => i + 1));
    const names = [...log.read()].map((e) => (e.event as { name: string }).name);
    expect(names).to.deep.equal(Array.from({ length: 500 }, (_, i) => `c${i}`));
    await log.close();
  });

  it('refuses a second opener of the same data dir while the first runs, and frees it on close', async () => {
    const log = LmdbLog.open(dir.path);
    const script = `import('${new URL('../../storage/log/lmdb-log.js', import.meta.url).href}').then(m => { try { m.LmdbLog.open(${JSON.stringify(dir.path)}); console.log('opened') } catch (e) { console.log(e.message) } process.exit(0) })`;
    const other = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8' });
    expect(other.stdout).to.match(/in use by process \d+/);
    await log.close();
    const again = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8' });
    expect(again.stdout.trim()).to.equal('opened');
  });

  it('opens a data file that ends in pages LMDB counted but never wrote, as a commit dropping entries leaves it', async () => {
    let log = LmdbLog.open(dir.path);
    await Promise.all(Array.from({ length: 20 }, (_, i) => log.append(del(`collection-${i}-${'x'.repeat(300)}`)).durable));
    await log.append(del('kept')).durable;
    await log.truncateThrough(20);
    await log.close();
    const short = lmdbShortfall(dir.path);
    expect(short, 'the meta page counts a page the file does not hold').to.not.equal(null);
    log = LmdbLog.open(dir.path);
    try {
      expect([...log.read(1)].map((e) => e.opId)).to.deep.equal([21]);
      await log.append(del('after')).durable;
      expect(log.lastOperationId).to.equal(22);
    } finally {
      await log.close();
    }
    expect(statSync(join(dir.path, 'data.mdb')).size).to.be.at.least(short!.needed);
  });

  it('refuses a data file cut short instead of crashing on it', async () => {
    const log = LmdbLog.open(dir.path);
    await Promise.all(Array.from({ length: 300 }, (_, i) => log.append(del(`collection-${i}-${'x'.repeat(200)}`)).durable));
    await log.close();
    const file = join(dir.path, 'data.mdb');
    const size = statSync(file).size;
    truncateSync(file, Math.floor(size / 2 / 4096) * 4096);
    expect(() => LmdbLog.open(dir.path)).to.throw(/data\.mdb is truncated: \d+ bytes, but its last commit uses \d+/);
    truncateSync(file, 100);
    expect(() => LmdbLog.open(dir.path)).to.throw(/too short to be a database/);
  });

  it('refuses a data file whose cut took large entries\' overflow pages, which LMDB reads back as zeros', async () => {
    const log = LmdbLog.open(dir.path);
    await log.append({ type: 'create_collection', name: 'c', config: { size: 128, distance: 'Euclid', m: 16, m0: 32, efConstruct: 100, ml: 0.36 } }).durable;
    for (let k = 0; k < 10; k++) {
      const points = Array.from({ length: 200 }, (_, i) => ({ id: k * 200 + i, vector: new Float32Array(128).fill(i), payload: {}, labels: [] }));
      await log.append({ type: 'upsert_points', collection: 'c', points }).durable;
    }
    await log.close();
    const file = join(dir.path, 'data.mdb');
    truncateSync(file, Math.floor(statSync(file).size / 2 / 4096) * 4096);
    // Every tree page reads back; the records' checksums are what tell the cut from free pages.
    expect(() => LmdbLog.open(dir.path)).to.throw(/data\.mdb is truncated: \d+ bytes, but its last commit uses \d+/);
  });

  it('a file cut short and grown back, as a commit after the cut leaves it, passes the length check; it is refused as damaged, or moved aside when the loss is accepted', async () => {
    let log = LmdbLog.open(dir.path);
    for (let i = 0; i < 3000; i += 50) await Promise.all(Array.from({ length: 50 }, (_, j) => log.append(del(`collection-${i + j}-${'x'.repeat(100)}`)).durable));
    await log.close();
    const file = join(dir.path, 'data.mdb');
    const size = statSync(file).size;
    truncateSync(file, Math.floor(size / 2 / 4096) * 4096);
    truncateSync(file, size);
    expect(() => checkLmdbFileLength(dir.path), 'the length is what the meta page claims').not.to.throw();
    let refused: unknown = null;
    try {
      await LmdbLog.open(dir.path).close();
    } catch (err) {
      refused = err;
    }
    expect(isDamagedFile(refused), String(refused)).to.equal(true);

    const moved: string[] = [];
    log = LmdbLog.open(dir.path, { onDamagedFile: (_reason, movedTo) => moved.push(movedTo) });
    expect(log.lastOperationId, 'an empty log').to.equal(0);
    await log.close();
    expect(moved).to.have.length(1);
    expect(existsSync(moved[0]!)).to.equal(true);
    const aside = basename(moved[0]!);
    expect(readdirSync(dir.path).filter((f) => f.startsWith('data.mdb.damaged-')).sort(), 'with its LMDB lock file').to.deep.equal([aside, `${aside}.lock`]);
  });

  it('opens a data dir whose name has a dot as a directory, and the same dir by a relative path', async () => {
    const dotted = join(dir.path, 'tmp.AbC123');
    let log = LmdbLog.open(dotted);
    await log.append(del('a')).durable;
    await log.close();
    expect(existsSync(join(dotted, 'data.mdb'))).to.equal(true);
    log = LmdbLog.open(relative(process.cwd(), dotted));
    expect(log.lastOperationId).to.equal(1);
    await log.close();
  });

  it('refuses to open the same data dir twice in one process (flock alone would let the second in)', async () => {
    const log = LmdbLog.open(dir.path);
    try {
      expect(() => LmdbLog.open(dir.path)).to.throw(new RegExp(`in use by process ${process.pid} \\(this process has it open already\\)`));
    } finally {
      await log.close();
    }
    await LmdbLog.open(dir.path).close();
  });
});
