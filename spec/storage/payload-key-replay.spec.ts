import { expect } from 'chai';
import { join } from 'node:path';
import { Engine } from '../../storage/engine/engine.js';
import { decodeEvent, encodeEvent } from '../../storage/events/codec.js';
import type { CollectionConfig, DbEvent, PointUpdate } from '../../storage/events/types.js';
import { LmdbLog } from '../../storage/log/lmdb-log.js';
import { tempDir } from '../helpers/temp-dir.js';

const config: CollectionConfig = { size: 2, distance: 'Cosine', m: 8, m0: 16, efConstruct: 40, ml: 1 / Math.log(8) };
const start = { 'a.b': 1, a: { b: 2, c: 3 }, arr: [{ q: 1, r: 1 }, { q: 2 }] };

/** The update byte of an update_points entry with one update (after the version, type, collection name and count). */
const updateCode = (bytes: Uint8Array, collection: string): number => bytes[2 + 4 + Buffer.byteLength(collection) + 4]!;

describe('storage: payload keys of entries logged before JSON paths replay as they applied then', () => {
  it('writes path keys under their own update codes and reads the old codes with dottedKeys', () => {
    const updates: PointUpdate[] = [
      { op: 'set_payload', ids: [1], payload: { x: 1 }, key: 'arr[0]' },
      { op: 'delete_payload', ids: [1], keys: ['arr[].q'] },
      { op: 'set_payload', ids: [1], payload: { x: 1 }, key: 'a.b', dottedKeys: true },
      { op: 'delete_payload', ids: [1], keys: ['a.b'], dottedKeys: true },
    ];
    const codes = updates.map((u) => {
      const event: DbEvent = { type: 'update_points', collection: 'c', updates: [u] };
      const bytes = encodeEvent(event);
      expect(decodeEvent(bytes)).to.deep.equal(event);
      return updateCode(bytes, 'c');
    });
    // 3 and 5 are the codes every entry had before paths; what they hold is read the old way.
    expect(codes).to.deep.equal([9, 10, 3, 5]);
  });

  it('applies and replays an old entry by dots and a new one by paths, on LMDB across a restart', async () => {
    const dir = tempDir();
    try {
      const open = () => new Engine(LmdbLog.open(join(dir.path, 'log')), { logRetention: 1000 });
      let engine = open();
      engine.replay();
      await engine.submit({ type: 'create_collection', name: 'old', config });
      await engine.submit({ type: 'create_collection', name: 'new', config });
      for (const name of ['old', 'new']) await engine.submit({ type: 'upsert_points', collection: name, points: [{ id: 1, vector: Float32Array.of(1, 0), payload: start, labels: [] }] });
      const edits = (dottedKeys: boolean): PointUpdate[] => [
        { op: 'delete_payload', ids: [1], keys: ['a.b', 'arr[].q'], ...(dottedKeys ? { dottedKeys } : {}) },
        { op: 'set_payload', ids: [1], payload: { s: true }, key: 'arr[0]', ...(dottedKeys ? { dottedKeys } : {}) },
      ] as PointUpdate[];
      await engine.submit({ type: 'update_points', collection: 'old', updates: edits(true) });
      await engine.submit({ type: 'update_points', collection: 'new', updates: edits(false) });
      const payloadOf = (e: Engine, name: string) => {
        const store = e.collections.get(name)!.store;
        return store.payloads[store.slotOf(1)];
      };
      // Before paths: the literal key `a.b` went first, `arr[].q` named nothing, `arr[0]` was a plain key.
      const old = { a: { b: 2, c: 3 }, arr: [{ q: 1, r: 1 }, { q: 2 }], 'arr[0]': { s: true } };
      const now = { 'a.b': 1, a: { c: 3 }, arr: [{ r: 1, s: true }, {}] };
      expect(payloadOf(engine, 'old')).to.deep.equal(old);
      expect(payloadOf(engine, 'new')).to.deep.equal(now);
      await engine.log.close();
      engine = open();
      engine.replay();
      expect(payloadOf(engine, 'old')).to.deep.equal(old);
      expect(payloadOf(engine, 'new')).to.deep.equal(now);
      await engine.close();
    } finally {
      dir.remove();
    }
  });
});
