import { expect } from 'chai';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { headers } from '@nats-io/transport-node';
import type { JetStreamClient, JetStreamManager } from '@nats-io/jetstream';
import { Publisher } from '../../replication/publisher.js';
import { ensureStream, entryHeaders, positionOf, PROMOTED_AFTER, readMessage, stageMessageId, streamHead, SUBJECT, type StreamMessage } from '../../replication/stream.js';
import { crc32 } from '../../storage/codec/crc32.js';
import { Engine } from '../../storage/engine/engine.js';
import { importStream } from '../../storage/engine/stream-import.js';
import type { CollectionConfig, PointRecord } from '../../storage/events/types.js';
import { LmdbLog } from '../../storage/log/lmdb-log.js';
import { stagedImportOf } from '../../storage/log/record.js';
import { exportFileChunks } from '../../tools/lib/export-file.js';
import { tempDir } from '../helpers/temp-dir.js';
import { follow, streamMessages, useJetStream } from './stream-fixture.js';

const STREAM = 'VGDB_STAGED';
const CONFIG: CollectionConfig = { size: 4, distance: 'Euclid', m: 4, m0: 8, efConstruct: 8, ml: 0.7 };
/** The NATS servers' max_payload as the publisher is told it: room for 20,000 bytes a message. */
const MAX_PAYLOAD = 1_024 + 20_000;
const POINTS = 3_000;
const pointAt = (i: number): PointRecord => ({ id: i, vector: Float32Array.of(i, 1, 2, 3), payload: { i, text: 'y'.repeat(100) }, labels: [] });
const fileOf = (points: number) => [...exportFileChunks({ name: 'c', config: CONFIG, points, pointAt, edges: [{ from: 0, to: 1, relation: 'R', weight: 2 }] })];

type EntryMessage = Extract<StreamMessage, { kind: 'entry' }>;

/** A primary's LMDB log after a collection (operation 1) and a streamed import of POINTS points into another (operation 2, staged). */
async function primaryLog(dir: string): Promise<{ log: LmdbLog; records: Map<number, Uint8Array>; stageFile: string }> {
  const engine = new Engine(LmdbLog.open(dir));
  await engine.start();
  await engine.submit({ type: 'create_collection', name: 'first', config: CONFIG });
  await importStream(engine, 'c', 'create', fileOf(POINTS));
  const log = engine.log as LmdbLog;
  const records = new Map([...log.readRaw()].map((e) => [e.opId, e.record]));
  const staged = stagedImportOf(2, records.get(2)!)!.staged!;
  return { log, records, stageFile: log.stageFile(staged.stage) };
}

/** What a promoted replica writes after operation 1: the same collection (operation 1), then another (operation 2). */
async function newPrimaryRecords(): Promise<Uint8Array[]> {
  const dir = tempDir('vgdb-staged-promoted-');
  try {
    const engine = new Engine(LmdbLog.open(dir.path));
    await engine.start();
    await engine.submit({ type: 'create_collection', name: 'first', config: CONFIG });
    await engine.submit({ type: 'create_collection', name: 'second', config: CONFIG });
    const records = [...engine.log.readRaw()].map((e) => e.record);
    await engine.close();
    return records;
  } finally {
    dir.remove();
  }
}

/** A publisher of `records` as the primary's log holds them, its stage files included. */
function publisherOf(js: JetStreamClient, jsm: JetStreamManager, log: LmdbLog, records: Map<number, Uint8Array>, fenced: string[]): Publisher {
  return new Publisher({
    js,
    jsm,
    stream: STREAM,
    mode: 'sync',
    selfUrl: null,
    publishTimeoutMs: 5_000,
    maxPayload: MAX_PAYLOAD,
    heldRecord: (opId) => records.get(opId) ?? null,
    stagedOf: (opId, record) => {
      const staged = stagedImportOf(opId, record)?.staged;
      return staged ? { stage: staged.stage, file: log.stageFile(staged.stage) } : null;
    },
    onFenced: (r) => fenced.push(r),
  });
}

/** Publishes a piece of staged blocks as a primary in an earlier life did, after the stream's last message. */
async function publishStagePiece(js: JetStreamClient, jsm: JetStreamManager, opId: number, previous: number, record: Uint8Array, blocks: Uint8Array, at: number): Promise<void> {
  const { seq } = await streamHead(jsm, STREAM);
  const piece = { stage: stagedImportOf(opId, record)!.staged!.stage, at, total: blocks.length };
  await js.publish(SUBJECT, blocks.subarray(at, at + 20_000), { msgID: stageMessageId(opId, at, crc32(record)), expect: { lastSequence: seq }, headers: entryHeaders(previous, null, null, piece) });
}

const stageFiles = (dir: string): string[] => (existsSync(join(dir, 'imports')) ? readdirSync(join(dir, 'imports')).sort() : []);

describe('replication: a streamed import goes as its staged blocks, then its entry', function () {
  this.timeout(60_000);
  const nats = useJetStream(STREAM);

  it('a primary publishes the stage file a message at a time ahead of the import\'s small entry, and a replica stages it byte for byte and applies the import', async () => {
    const primary = tempDir('vgdb-staged-primary-');
    const replica = tempDir('vgdb-staged-replica-');
    try {
      const { log, records, stageFile } = await primaryLog(primary.path);
      const blocks = readFileSync(stageFile);
      expect(blocks.length, 'the stage spans many messages').to.be.above(10 * 20_000);
      expect(records.get(2)!.length, 'the entry names the stage, it does not hold the points').to.be.below(1_000);
      const fenced: string[] = [];
      const publisher = publisherOf(nats.js, nats.jsm, log, records, fenced);
      expect(await publisher.start()).to.equal(0);
      await Promise.all([...records].map(([opId, record]) => publisher.admit(opId, record, Promise.resolve())));
      expect(fenced).to.deep.equal([]);
      expect(publisher.publishedThrough).to.equal(2);

      const messages = (await streamMessages(nats.jsm, STREAM)) as EntryMessage[];
      const pieces = messages.slice(1, -1);
      expect(pieces.map((m) => m.stage?.at), 'each piece of the blocks once, in order, between the two entries').to.deep.equal(Array.from({ length: Math.ceil(blocks.length / 20_000) }, (_, i) => i * 20_000));
      expect(Buffer.concat(pieces.map((m) => m.record)).equals(blocks)).to.equal(true);
      expect(pieces.every((m) => positionOf(m) === 1), 'the stream stands at the entry before while the blocks go').to.equal(true);
      expect(Buffer.from(messages.at(-1)!.record).equals(Buffer.from(records.get(2)!)), 'then the entry itself').to.equal(true);
      await log.close();

      const { engine, stopped } = await follow(replica.path, nats, STREAM, 2);
      expect(stopped).to.deep.equal([]);
      expect(engine.collections.get('c')!.store.liveCount).to.equal(POINTS);
      const own = engine.log as LmdbLog;
      const [entry] = [...own.readRaw(2, 2)];
      expect(Buffer.from(entry!.record).equals(Buffer.from(records.get(2)!)), 'the same record').to.equal(true);
      const staged = stagedImportOf(2, entry!.record)!.staged!;
      expect(readFileSync(own.stageFile(staged.stage)).equals(blocks), 'the same stage file').to.equal(true);
      await engine.close();
      // It replays from its own stage file.
      const again = new Engine(LmdbLog.open(replica.path));
      await again.start();
      expect(again.collections.get('c')!.store.liveCount).to.equal(POINTS);
      await again.close();
    } finally {
      primary.remove();
      replica.remove();
    }
  });

  it('a primary that stopped part way through an import\'s staged blocks goes on after the last piece the stream holds', async () => {
    const primary = tempDir('vgdb-staged-primary-');
    const replica = tempDir('vgdb-staged-replica-');
    try {
      const { log, records, stageFile } = await primaryLog(primary.path);
      const blocks = readFileSync(stageFile);
      // An earlier life published operation 1 and the first three pieces of operation 2's blocks.
      await nats.js.publish(SUBJECT, records.get(1)!, { msgID: '1', expect: { lastSequence: 0 }, headers: entryHeaders(0, null) });
      for (const at of [0, 20_000, 40_000]) await publishStagePiece(nats.js, nats.jsm, 2, 1, records.get(2)!, blocks, at);
      const fenced: string[] = [];
      const publisher = publisherOf(nats.js, nats.jsm, log, records, fenced);
      expect(await publisher.start(), 'the stream stands at operation 1').to.equal(1);
      await publisher.admit(2, records.get(2)!, Promise.resolve());
      expect(fenced).to.deep.equal([]);
      const pieces = ((await streamMessages(nats.jsm, STREAM)) as EntryMessage[]).slice(1, -1);
      expect(pieces.map((m) => m.stage?.at), 'the rest, each once').to.deep.equal(Array.from({ length: Math.ceil(blocks.length / 20_000) }, (_, i) => i * 20_000));
      await log.close();
      const { engine, stopped } = await follow(replica.path, nats, STREAM, 2);
      expect(stopped).to.deep.equal([]);
      expect(engine.collections.get('c')!.store.liveCount).to.equal(POINTS);
      await engine.close();
    } finally {
      primary.remove();
      replica.remove();
    }
  });

  it('a replica drops the blocks of an import its primary never finished when a promoted one\'s marker follows them, and one whose blocks do not match the digest stops, leaving no stage file', async () => {
    const primary = tempDir('vgdb-staged-primary-');
    const replica = tempDir('vgdb-staged-replica-');
    const damaged = tempDir('vgdb-staged-damaged-');
    try {
      const { log, records, stageFile } = await primaryLog(primary.path);
      const blocks = readFileSync(stageFile);
      await log.close();
      await nats.js.publish(SUBJECT, records.get(1)!, { msgID: '1', expect: { lastSequence: 0 }, headers: entryHeaders(0, null) });
      for (const at of [0, 20_000]) await publishStagePiece(nats.js, nats.jsm, 2, 1, records.get(2)!, blocks, at);
      const marker = headers();
      marker.set(PROMOTED_AFTER, '1');
      await nats.js.publish(SUBJECT, new Uint8Array(0), { msgID: 'promoted-1-test', headers: marker });
      // The new primary's own operation 2, no import: taken only if the unfinished blocks were dropped at the marker.
      const written = await newPrimaryRecords();
      expect(Buffer.from(written[0]!).equals(Buffer.from(records.get(1)!))).to.equal(true);
      const afterMarker = await streamHead(nats.jsm, STREAM);
      await nats.js.publish(SUBJECT, written[1]!, { msgID: '2', expect: { lastSequence: afterMarker.seq }, headers: entryHeaders(1, null) });
      const { engine, stopped } = await follow(replica.path, nats, STREAM, 2);
      expect(stopped).to.deep.equal([]);
      expect([...engine.collections.keys()].sort()).to.deep.equal(['first', 'second']);
      await engine.close();
      expect(stageFiles(replica.path), 'the unfinished blocks are deleted').to.deep.equal([]);

      // The whole import again, one byte of its blocks changed in flight: the digest refuses it
      // (on a new stream: JetStream would take the same message ids for retries and drop them).
      await nats.jsm.streams.delete(STREAM);
      await ensureStream(nats.jsm, { name: STREAM, replicas: 1 });
      const { seq } = await streamHead(nats.jsm, STREAM);
      await nats.js.publish(SUBJECT, records.get(1)!, { msgID: '1', expect: { lastSequence: seq }, headers: entryHeaders(0, null) });
      const changed = Buffer.from(blocks);
      changed[30_000] ^= 1;
      for (let at = 0; at < changed.length; at += 20_000) await publishStagePiece(nats.js, nats.jsm, 2, 1, records.get(2)!, changed, at);
      const head = await streamHead(nats.jsm, STREAM);
      await nats.js.publish(SUBJECT, records.get(2)!, { msgID: '2', expect: { lastSequence: head.seq }, headers: entryHeaders(1, null) });
      const result = await follow(damaged.path, nats, STREAM, 2);
      expect(result.stopped).to.have.length(1);
      expect(result.stopped[0]).to.match(/the staged blocks of log entry 2 do not match the SHA-256 it names; nothing from it on is applied/);
      expect(result.engine.lastAppliedOperationId).to.equal(1);
      await result.engine.close();
      expect(stageFiles(damaged.path)).to.deep.equal([]);
    } finally {
      primary.remove();
      replica.remove();
      damaged.remove();
    }
  });

  it('a replica whose stream no longer holds an import\'s first staged pieces stops, naming them, and stages nothing', async () => {
    const primary = tempDir('vgdb-staged-primary-');
    const replica = tempDir('vgdb-staged-replica-');
    try {
      const { log, records, stageFile } = await primaryLog(primary.path);
      const blocks = readFileSync(stageFile);
      await log.close();
      await nats.js.publish(SUBJECT, records.get(1)!, { msgID: '1', expect: { lastSequence: 0 }, headers: entryHeaders(0, null) });
      for (const at of [0, 20_000, 40_000]) await publishStagePiece(nats.js, nats.jsm, 2, 1, records.get(2)!, blocks, at);
      // The oldest messages are dropped (a retention limit), the first two pieces with them.
      await nats.jsm.streams.purge(STREAM, { keep: 1 });
      const engine = new Engine(LmdbLog.open(replica.path));
      await engine.start();
      // This replica holds operation 1 already (as from a bootstrap).
      await engine.applyReplicated(1, records.get(1)!);
      await engine.close();
      const { engine: again, stopped } = await follow(replica.path, nats, STREAM, 2);
      expect(stopped).to.have.length(1);
      expect(stopped[0]).to.match(/holds bytes 40000 on of the staged blocks of log entry 2, but not the piece before them .*start this replica again on an empty data dir/);
      expect(again.lastAppliedOperationId).to.equal(1);
      await again.close();
      expect(stageFiles(replica.path)).to.deep.equal([]);
    } finally {
      primary.remove();
      replica.remove();
    }
  });

  it('reads a piece of staged blocks from its headers, and refuses one that does not add up', () => {
    const h = entryHeaders(4, null, null, { stage: 3, at: 2_000, total: 5_000 });
    h.set('Nats-Msg-Id', '5+2000#0badf00d');
    const m = readMessage(9, h, new Uint8Array(1_000));
    expect(m).to.deep.include({ kind: 'entry', opId: 5, previous: 4, piece: null, stage: { stage: 3, at: 2_000, total: 5_000 } });
    expect(positionOf(m), 'it stands at the entry before').to.equal(4);
    expect(() => readMessage(9, h, new Uint8Array(3_001))).to.throw(/holds bytes 2000 to 5001 of staged blocks of 5000/);
    h.set('Nats-Msg-Id', '5+1000#0badf00d');
    expect(() => readMessage(9, h, new Uint8Array(10))).to.throw(/names a piece of staged blocks as "3:2000\/5000"/);
    const bare = entryHeaders(4, null);
    bare.set('Nats-Msg-Id', '5+1000#0badf00d');
    expect(() => readMessage(9, bare, new Uint8Array(10))).to.throw(/names a piece of staged blocks as null/);
  });
});
