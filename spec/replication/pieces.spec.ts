import { expect } from 'chai';
import { headers } from '@nats-io/transport-node';
import type { JetStreamClient, JetStreamManager } from '@nats-io/jetstream';
import { PieceGatherer } from '../../replication/pieces.js';
import { Publisher } from '../../replication/publisher.js';
import { entryHeaders, entryMessageId, positionOf, PROMOTED_AFTER, readMessage, streamHead, SUBJECT } from '../../replication/stream.js';
import { crc32 } from '../../storage/codec/crc32.js';
import { Engine } from '../../storage/engine/engine.js';
import type { CollectionConfig } from '../../storage/events/types.js';
import { LmdbLog } from '../../storage/log/lmdb-log.js';
import { MemoryLog } from '../../storage/log/memory-log.js';
import { tempDir } from '../helpers/temp-dir.js';
import { follow, streamMessages, useJetStream } from './stream-fixture.js';

const STREAM = 'VGDB_PIECES';
const DIM = 32;
const config: CollectionConfig = { size: DIM, distance: 'Dot', m: 8, m0: 16, efConstruct: 16, ml: 1 / Math.log(8) };
/** The NATS servers' max_payload as the publisher is told it: room for 1,000 bytes of record a message. */
const MAX_PAYLOAD = 1_024 + 1_000;

const points = (from: number, count: number) => Array.from({ length: count }, (_, i) => ({ id: from + i, vector: new Float32Array(DIM).fill(from + i), payload: {}, labels: [] }));

/** A primary's log records: its collection (operation 1), then an upsert of `count` points from `from` (operation 2). */
async function records(from: number, count: number): Promise<Uint8Array[]> {
  const engine = new Engine(new MemoryLog());
  await engine.submit({ type: 'create_collection', name: 'c', config });
  await engine.submit({ type: 'upsert_points', collection: 'c', points: points(from, count) });
  return [...engine.log.readRaw()].map((e) => e.record);
}

/** Publishes a message as a primary in an earlier life did: an entry (or a piece of one) that must follow the stream's last message. */
async function publishAsBefore(js: JetStreamClient, jsm: JetStreamManager, opId: number, record: Uint8Array, previous: number, piece: { at: number; total: number } | null): Promise<void> {
  const { seq } = await streamHead(jsm, STREAM);
  const bytes = piece ? record.subarray(piece.at, piece.at + 1_000) : record;
  await js.publish(SUBJECT, bytes, { msgID: entryMessageId(opId, piece, crc32(record)), expect: { lastSequence: seq }, headers: entryHeaders(previous, null, piece) });
}

describe('replication: an entry larger than one NATS message goes as pieces', function () {
  this.timeout(60_000);
  const nats = useJetStream(STREAM);

  it('a primary that stopped part way through an entry\'s pieces goes on after the last the stream holds, and a replica applies the entry whole', async () => {
    const [create, upsert] = await records(0, 400);
    expect(upsert!.length).to.be.above(10_000);
    // An earlier life of this primary published its collection, then two pieces of the upsert.
    await publishAsBefore(nats.js, nats.jsm, 1, create!, 0, null);
    await publishAsBefore(nats.js, nats.jsm, 2, upsert!, 1, { at: 0, total: upsert!.length });
    await publishAsBefore(nats.js, nats.jsm, 2, upsert!, 1, { at: 1_000, total: upsert!.length });
    expect(positionOf((await streamHead(nats.jsm, STREAM)).last!), 'the stream stands at the entry before the unfinished one').to.equal(1);
    const held = new Map([[1, create!], [2, upsert!]]);
    const fenced: string[] = [];
    const publisher = new Publisher({ js: nats.js, jsm: nats.jsm, stream: STREAM, mode: 'sync', selfUrl: null, publishTimeoutMs: 5_000, maxPayload: MAX_PAYLOAD, heldRecord: (opId) => held.get(opId) ?? null, onFenced: (r) => fenced.push(r) });
    expect(await publisher.start()).to.equal(1);
    await publisher.admit(2, upsert!, Promise.resolve());
    expect(fenced).to.deep.equal([]);
    expect(publisher.publishedThrough).to.equal(2);

    const messages = await streamMessages(nats.jsm, STREAM);
    const pieces = messages.slice(1).map((m) => (m.kind === 'entry' ? m.piece?.at : null));
    expect(pieces, 'each piece once, in order').to.deep.equal(Array.from({ length: Math.ceil(upsert!.length / 1_000) }, (_, i) => i * 1_000));
    const gatherer = new PieceGatherer();
    const whole = messages.slice(1).map((m) => gatherer.take(m as Extract<typeof m, { kind: 'entry' }>)).at(-1);
    expect(Buffer.from(whole!).equals(Buffer.from(upsert!))).to.equal(true);

    const replica = tempDir('vgdb-pieces-replica-');
    try {
      const { engine, stopped } = await follow(replica.path, nats, STREAM, 2);
      expect(stopped).to.deep.equal([]);
      expect(engine.lastAppliedOperationId).to.equal(2);
      expect([...engine.collections.get('c')!.store.sortedIds()]).to.have.length(400);
      await engine.close();
    } finally {
      replica.remove();
    }
  });

  it('a replica drops the pieces of an entry its primary never finished when a promoted one\'s marker follows them, and applies what the new primary wrote', async () => {
    const [create, unfinished] = await records(0, 400);
    const [, written] = await records(1_000, 300);
    await publishAsBefore(nats.js, nats.jsm, 1, create!, 0, null);
    await publishAsBefore(nats.js, nats.jsm, 2, unfinished!, 1, { at: 0, total: unfinished!.length });
    const h = headers();
    h.set(PROMOTED_AFTER, '1');
    await nats.js.publish(SUBJECT, new Uint8Array(0), { msgID: 'promoted-1-test', headers: h });
    // The new primary's own operation 2, in pieces too, at the same places as the unfinished one's: stored all the same.
    for (let at = 0; at < written!.length; at += 1_000) await publishAsBefore(nats.js, nats.jsm, 2, written!, 1, { at, total: written!.length });
    const replica = tempDir('vgdb-pieces-replica-');
    try {
      const { engine, stopped } = await follow(replica.path, nats, STREAM, 2);
      expect(stopped).to.deep.equal([]);
      expect([...engine.collections.get('c')!.store.sortedIds()]).to.deep.equal(Array.from({ length: 300 }, (_, i) => 1_000 + i));
      await engine.close();
    } finally {
      replica.remove();
    }
  });

  it('a replica whose stream no longer holds an entry\'s first pieces stops, naming them, rather than apply a part', async () => {
    const [create, upsert] = await records(0, 400);
    await publishAsBefore(nats.js, nats.jsm, 1, create!, 0, null);
    await publishAsBefore(nats.js, nats.jsm, 2, upsert!, 1, { at: 0, total: upsert!.length });
    await publishAsBefore(nats.js, nats.jsm, 2, upsert!, 1, { at: 1_000, total: upsert!.length });
    // The oldest messages are dropped (a retention limit), the entry's first piece with them.
    await nats.jsm.streams.purge(STREAM, { keep: 1 });
    const replica = tempDir('vgdb-pieces-replica-');
    try {
      const engine = new Engine(LmdbLog.open(replica.path));
      await engine.start();
      // This replica holds operation 1 already (as from a bootstrap).
      await engine.applyReplicated(1, create!);
      await engine.close();
      const { engine: again, stopped } = await follow(replica.path, nats, STREAM, 2);
      expect(stopped).to.have.length(1);
      expect(stopped[0]).to.match(/holds bytes 1000 on of log entry 2, but not the piece before them .*start this replica again on an empty data dir/);
      expect(again.lastAppliedOperationId).to.equal(1);
      await again.close();
    } finally {
      replica.remove();
    }
  });

  it('reads a piece\'s place from its headers, and refuses one that does not add up', () => {
    const h = entryHeaders(4, null, { at: 2_000, total: 5_000 });
    h.set('Nats-Msg-Id', '5@2000#0badf00d');
    const m = readMessage(9, h, new Uint8Array(1_000));
    expect(m).to.deep.include({ kind: 'entry', opId: 5, previous: 4, piece: { at: 2_000, total: 5_000 } });
    expect(() => readMessage(9, h, new Uint8Array(3_001))).to.throw(/holds bytes 2000 to 5001 of an entry of 5000/);
    h.set('Nats-Msg-Id', '5@1000#0badf00d');
    expect(() => readMessage(9, h, new Uint8Array(10))).to.throw(/names a piece of an entry as "2000\/5000"/);
  });
});
