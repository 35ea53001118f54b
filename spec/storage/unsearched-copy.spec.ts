import { expect } from 'chai';
import { Collection } from '../../storage/collection.js';
import { CollectionMap } from '../../storage/engine/collection-map.js';
import type { CollectionConfig, PointRecord } from '../../storage/events/types.js';
import { REMOVED, type PointStore } from '../../storage/views/point-store.js';
import { decodeSnapshot } from '../../storage/snapshot/snapshot-codec.js';
import { capturedParts } from '../helpers/captured-parts.js';
import { randomVectors } from '../helpers/vectors.js';

const hnsw = { m: 8, m0: 16, efConstruct: 40, ml: 1 / Math.log(8) };
/** An unnamed vector and a named one, each with a graph and a backlog of its own. */
const config: CollectionConfig = { size: 8, distance: 'Euclid', ...hnsw, named: { title: { size: 4, distance: 'Cosine', ...hnsw, onDisk: false } } };
const POINTS = 400;

function points(ids: number[], seed: number): PointRecord[] {
  const unnamed = randomVectors(ids.length, 8, seed);
  const title = randomVectors(ids.length, 4, seed + 1);
  return ids.map((id, i) => ({ id, vector: unnamed[i]!, named: { title: title[i]! }, payload: { round: seed }, labels: ['P'] }));
}

const removedSlots = (store: PointStore): number => store.state.subarray(0, store.slotCount).filter((s) => s === REMOVED).length;
const ids = Array.from({ length: POINTS }, (_, i) => i);

describe('storage: a copy of the collections that no search walks (a Cypher replica\'s) frees slots at once', () => {
  it('frees the removed slots it is given and those of every point deleted or given a new vector, keeping the same points as the searched copy', () => {
    const main = new Collection('g', config, 42);
    main.upsert(points(ids, 1));
    while (main.indexSome(10_000));
    // Linked points deleted (waypoints until a repair) and new ones waiting to be linked.
    for (let id = 0; id < 40; id++) main.remove(id);
    main.upsert(points(ids.slice(0, 40).map((id) => POINTS + id), 2));
    expect(removedSlots(main.store), 'the searched copy keeps its waypoints').to.equal(40);
    expect(main.pendingCount).to.equal(80);

    const copies = new CollectionMap(null, false);
    copies.set('g', decodeSnapshot(capturedParts(new Map([['g', main]]), 7, undefined, false)).collections.get('g')!);
    const copy = copies.get('g')!;
    const title = (c: Collection) => c.named.get('title')!.store;
    expect(removedSlots(copy.store), 'the waypoints it was given are free').to.equal(0);
    expect(copy.pendingCount, 'nothing waits to be linked').to.equal(0);
    const slots = copy.store.slotCount;
    const titleSlots = title(copy).slotCount;

    // Every point given new vectors, again and again, and some deleted and written back.
    for (let round = 3; round < 23; round++) {
      const batch = points([...ids.slice(40), ...ids.slice(0, 40).map((id) => POINTS + id)], round);
      for (const c of [main, copy]) {
        c.upsert(batch);
        for (let id = 100; id < 110; id++) c.remove(id);
        c.upsert(points(ids.slice(100, 110), round + 100));
      }
    }
    expect(copy.store.slotCount, 'the unnamed vector\'s slots').to.equal(slots);
    expect(title(copy).slotCount, 'the named vector\'s slots').to.equal(titleSlots);
    expect(removedSlots(copy.store)).to.equal(0);
    expect(removedSlots(title(copy))).to.equal(0);
    expect(copy.pendingCount).to.equal(0);
    expect(main.store.slotCount, 'the searched copy, which links nothing here, takes new slots').to.be.greaterThan(slots * 10);

    expect(copy.store.liveCount).to.equal(main.store.liveCount);
    for (const id of [...ids.slice(40), ...ids.slice(0, 40).map((i) => POINTS + i)]) {
      const slot = copy.store.slotOf(id);
      expect(Array.from(copy.store.vectorOf(slot)), `point ${id}`).to.deep.equal(Array.from(main.store.vectorOf(main.store.slotOf(id))));
      expect(copy.store.payloads[slot]).to.deep.equal(main.store.payloads[main.store.slotOf(id)]);
      expect(Array.from(copy.named.get('title')!.vectorOf(id)!)).to.deep.equal(Array.from(main.named.get('title')!.vectorOf(id)!));
    }
  });

  it('holds a freed slot while an export is pinned, as the searched copy does', () => {
    const copies = new CollectionMap(null, false);
    copies.set('g', new Collection('g', config, 42));
    const copy = copies.get('g')!;
    copy.upsert(points(ids.slice(0, 10), 1));
    copy.pin();
    copy.upsert(points(ids.slice(0, 10), 2));
    expect(copy.store.slotCount, 'no slot reused under the pin').to.equal(20);
    copy.unpin();
    copy.upsert(points(ids.slice(0, 10), 3));
    expect(copy.store.slotCount, 'the held slots reused once it ends').to.equal(20);
  });

  it('moves floats set on_disk and builds a declared payload index at once, having no indexer to do it in steps', () => {
    const copies = new CollectionMap(null, false);
    const files = { open: () => ({ write: () => undefined, read: () => undefined, close: () => undefined }), released: () => undefined };
    const copy = new Collection('big', { size: 128, distance: 'Euclid', ...hnsw }, 42);
    copies.set('big', copy);
    copy.useFloatFiles(files);
    // 4.2M values and 33,000 points: a searched collection would move and build these in steps.
    copy.upsert(randomVectors(33_000, 128, 3).map((vector, id) => ({ id, vector, payload: { body: `word${id % 10}` }, labels: [] })));
    copy.settings = { vectors: { '': { on_disk: true } } };
    copy.declareIndex('body', { type: 'text', params: {} });
    expect([copy.store.onDisk, copy.store.movingToDisk, copy.optimizing]).to.deep.equal([true, false, false]);
    expect(copy.payloadIndex.holders('body')).to.equal(33_000);
    expect(copy.payloadIndex.textLookup('body', ['word3'])?.size).to.equal(3_300);
  });
});
