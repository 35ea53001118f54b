import { readdirSync, readlinkSync } from 'node:fs';
import { expect } from 'chai';
import { ByteReader } from '../../storage/codec/byte-reader.js';
import { ByteWriter } from '../../storage/codec/byte-writer.js';
import { runNow } from '../../storage/codec/slices.js';
import { Collection } from '../../storage/collection.js';
import type { CollectionConfig } from '../../storage/events/types.js';
import { DataDirFloatFiles } from '../../storage/floats/data-dir-float-files.js';
import { PointStore, SIMD_FROM_BYTES } from '../../storage/views/point-store.js';
import { VectorSpace } from '../../storage/views/vector-space.js';
import { searchCollection } from '../../query/search/vector-search.js';
import { decodeSnapshot, encodeSnapshot } from '../../storage/snapshot/snapshot-codec.js';
import { tempDir } from '../helpers/temp-dir.js';
import { randomVectors } from '../helpers/vectors.js';

const openFloatFiles = (dir: string) => readdirSync('/proc/self/fd').filter((fd) => {
  try {
    return readlinkSync(`/proc/self/fd/${fd}`).startsWith(`${dir}/floats/`);
  } catch {
    return false;
  }
}).length;

/** A store of `count` vectors with a few removed and a few without a vector. */
function filled(dim: number, count: number): PointStore {
  const store = new PointStore(dim);
  randomVectors(count, dim, 4).forEach((v, id) => store.add(id, id % 17 === 5 ? null : v, { id }, []));
  for (let id = 0; id < count; id += 23) store.remove(id);
  return store;
}

function snapshotBytes(store: PointStore): Uint8Array {
  const w = new ByteWriter();
  const captured = store.capture();
  runNow(captured.write(w));
  captured.release();
  return w.finish();
}

describe('storage/views: float vectors on disk', () => {
  let dir: ReturnType<typeof tempDir>;
  beforeEach(() => (dir = tempDir()));
  afterEach(() => dir.remove());

  for (const [what, count] of [['a small store (plain buffers, scalar kernels)', 50], ['a large one (WebAssembly memory, SIMD kernels)', Math.ceil(SIMD_FROM_BYTES / (40 * 4)) + 100]] as const) {
    it(`reads back exactly what RAM held, with the same distances and snapshot bytes: ${what}`, () => {
      const files = new DataDirFloatFiles(dir.path);
      const ram = filled(40, count);
      const disk = filled(40, count);
      const ramSpace = new VectorSpace(ram, 'Cosine');
      const diskSpace = new VectorSpace(disk, 'Cosine');
      disk.toDisk(files.open(40));
      expect([disk.onDisk, disk.vectors.length, openFloatFiles(dir.path)]).to.deep.equal([true, 0, 1]);
      expect(disk.kernels === null).to.equal(ram.kernels === null);
      for (let slot = 0; slot < count; slot += 7) expect(disk.vectorOf(slot)).to.deep.equal(ram.vectorOf(slot));
      const query = randomVectors(1, 40, 99)[0]!;
      ramSpace.setQuery(query);
      diskSpace.setQuery(query);
      for (let slot = 1; slot < count; slot += 5) {
        expect(diskSpace.toQuery(slot)).to.equal(ramSpace.toQuery(slot));
        expect(diskSpace.between(slot, slot - 1)).to.equal(ramSpace.between(slot, slot - 1));
        expect(diskSpace.l2Between(slot - 1, slot)).to.equal(ramSpace.l2Between(slot - 1, slot));
      }
      expect(disk.sameVector(3, ram.vectorOf(3))).to.equal(true);
      expect(disk.sameVector(3, ram.vectorOf(4))).to.equal(false);
      const seen: number[] = [];
      disk.forEachVector((slot, v, at) => {
        if (slot % 11 === 0) expect(v.subarray(at, at + 40)).to.deep.equal(ram.vectorOf(slot));
        seen.push(slot);
      });
      expect(seen).to.deep.equal(Array.from({ length: count }, (_, slot) => slot).filter((slot) => ram.hasVector[slot] === 1));
      expect(Buffer.from(snapshotBytes(disk)).equals(Buffer.from(snapshotBytes(ram))), 'the snapshot bytes of RAM').to.equal(true);

      const loaded = new PointStore(40);
      loaded.toDisk(files.open(40));
      loaded.readFrom(new ByteReader(snapshotBytes(ram)), true);
      expect(Buffer.from(snapshotBytes(loaded)).equals(Buffer.from(snapshotBytes(ram))), 'a snapshot loaded into a store on disk').to.equal(true);

      disk.add(count + 1, query, {}, []);
      ram.add(count + 1, query, {}, []);
      disk.toRam();
      expect([disk.onDisk, openFloatFiles(dir.path)]).to.deep.equal([false, 1]);
      expect(Buffer.from(snapshotBytes(disk)).equals(Buffer.from(snapshotBytes(ram))), 'back in RAM, the vector added on disk included').to.equal(true);
      diskSpace.setQuery(query);
      ramSpace.setQuery(query);
      expect(diskSpace.toQuery(count + 1)).to.equal(ramSpace.toQuery(count + 1));
    });
  }

  it('writes a capture taken on disk as the store was, though its freed slots get new vectors and it moves to RAM between the pieces', () => {
    const count = Math.ceil(SIMD_FROM_BYTES / (40 * 4)) + 100;
    const files = new DataDirFloatFiles(dir.path);
    const ram = filled(40, count);
    const disk = filled(40, count);
    for (const store of [ram, disk]) for (let slot = 0; slot < count; slot += 23) store.release(slot);
    disk.toDisk(files.open(40));
    const expected = snapshotBytes(ram);
    const captured = disk.capture();
    const w = new ByteWriter();
    const pieces = captured.write(w);
    pieces.next();
    const fresh = randomVectors(10, 40, 31);
    fresh.forEach((v, k) => disk.add(count + 100 + k, v, {}, []));
    pieces.next();
    disk.toRam();
    while (!pieces.next().done);
    captured.release();
    expect(Buffer.from(w.finish()).equals(Buffer.from(expected))).to.equal(true);
  });

  it('links and searches an on-disk collection as it would in RAM, with and without int8 codes, and follows on_disk and quantization settings', () => {
    const config: CollectionConfig = { size: 16, distance: 'Euclid', m: 8, m0: 16, efConstruct: 64, ml: 1 / Math.log(8) };
    const points = randomVectors(1500, 16, 8).map((vector, id) => ({ id, vector, payload: {}, labels: [] }));
    const ram = new Collection('ram', config, 7);
    const disk = new Collection('disk', config, 7);
    disk.useFloatFiles(new DataDirFloatFiles(dir.path));
    disk.settings = { vectors: { '': { on_disk: true } } };
    expect(disk.store.onDisk).to.equal(true);
    for (const c of [ram, disk]) {
      c.upsert(points);
      while (c.indexSome(500));
    }
    const queries = randomVectors(10, 16, 31);
    const top = (c: Collection) => queries.map((vector) => searchCollection(c, { vector, limit: 10, offset: 0, ef: 64, filter: null, scoreThreshold: null }).map((h) => [h.id, h.score]));
    expect(top(disk), 'the same graph, built from the floats in the file').to.deep.equal(top(ram));
    for (const c of [ram, disk]) c.settings = { ...c.settings, quantization_config: { scalar: { type: 'int8' }, binary: null, product: null } };
    expect(disk.store.onDisk, 'quantizing keeps the floats on disk').to.equal(true);
    expect(top(disk), 'the int8 walk rescored with the floats read from the file').to.deep.equal(top(ram));
    disk.settings = { ...disk.settings, vectors: { '': { on_disk: false } } };
    expect([disk.store.onDisk, openFloatFiles(dir.path)]).to.deep.equal([false, 0]);
    expect(top(disk)).to.deep.equal(top(ram));
  });

  it('moves its vectors into a file a step at a time, read in RAM until all are written; one added meanwhile below the move is written to the file too', () => {
    const files = new DataDirFloatFiles(dir.path);
    const store = filled(40, 3_000);
    const extra = randomVectors(3, 40, 77);
    store.beginToDisk(files.open(40));
    expect([store.movingToDisk, store.onDisk, openFloatFiles(dir.path)]).to.deep.equal([true, false, 1]);
    let steps = 0;
    for (;;) {
      const more = store.moveStep(100);
      steps++;
      // Slot 23 (a removed point's) is freed and taken by a new point once the move has passed it; a new slot at the end it has not.
      if (steps === 10) {
        store.release(23);
        expect(store.add(5_000, extra[0]!, {}, [])).to.equal(23);
        expect(store.onDisk, 'still in RAM').to.equal(false);
        expect(store.vectorOf(23)).to.deep.equal(extra[0]);
      }
      if (steps === 12) expect(store.add(5_001, extra[1]!, {}, [])).to.equal(3_000);
      if (!more) break;
    }
    expect(steps, '3,001 slots, 100 a step').to.equal(31);
    expect([store.movingToDisk, store.onDisk, store.vectors.length]).to.deep.equal([false, true, 0]);
    const ram = filled(40, 3_000);
    ram.release(23);
    ram.add(5_000, extra[0]!, {}, []);
    ram.add(5_001, extra[1]!, {}, []);
    for (let slot = 0; slot < ram.slotCount; slot++) expect(store.vectorOf(slot), `slot ${slot} read from the file`).to.deep.equal(ram.vectorOf(slot));
    // A move that is called off (back to RAM before it ends) lets its file go.
    const other = filled(40, 500);
    other.beginToDisk(files.open(40));
    other.moveStep(100);
    other.toRam();
    expect([other.movingToDisk, other.onDisk, openFloatFiles(dir.path)]).to.deep.equal([false, false, 1]);
    expect(other.vectorOf(499)).to.deep.equal(filled(40, 500).vectorOf(499));
  });

  it('moves its vectors back into RAM a step at a time, read from the file until all are; one added meanwhile below the move is kept in RAM too, and growing begins the move again', () => {
    const files = new DataDirFloatFiles(dir.path);
    const count = Math.ceil(SIMD_FROM_BYTES / (40 * 4)) + 100;
    const store = filled(40, count);
    const relocated: boolean[] = [];
    store.onRelocate = () => void relocated.push(store.onDisk);
    store.toDisk(files.open(40));
    relocated.length = 0;
    const extra = randomVectors(3, 40, 78);
    store.beginToRam();
    expect([store.movingToRam, store.onDisk, store.vectors.length, relocated.length]).to.deep.equal([true, true, 0, 0]);
    let steps = 0;
    for (;;) {
      const more = store.toRamStep(100);
      steps++;
      // Slot 23 (a removed point's) is freed and taken by a new point once the move has passed it.
      if (steps === 3) {
        store.release(23);
        expect(store.add(90_000, extra[0]!, {}, [])).to.equal(23);
        expect(store.onDisk, 'still on disk').to.equal(true);
        expect(store.vectorOf(23), 'read from the file').to.deep.equal(extra[0]);
      }
      if (!more) break;
    }
    expect(steps, `${count} slots, 100 a step`).to.equal(Math.ceil(count / 100));
    expect([store.movingToRam, store.onDisk, openFloatFiles(dir.path), relocated]).to.deep.equal([false, false, 0, [false]]);
    const ram = filled(40, count);
    ram.release(23);
    ram.add(90_000, extra[0]!, {}, []);
    for (let slot = 0; slot < ram.slotCount; slot++) expect(store.vectorOf(slot), `slot ${slot} in RAM`).to.deep.equal(ram.vectorOf(slot));
    // Grown while moving back: the move begins again at the new size and still ends with every vector.
    const grown = filled(40, 3_000);
    grown.toDisk(files.open(40));
    grown.beginToRam();
    grown.toRamStep(1_000);
    const added = randomVectors(5_000, 40, 79);
    added.forEach((v, k) => grown.add(10_000 + k, v, {}, []));
    expect(grown.movingToRam).to.equal(true);
    let more = 0;
    while (grown.toRamStep(1_000)) more++;
    expect(more, 'every slot read again after growing').to.equal(7);
    expect([grown.onDisk, openFloatFiles(dir.path)]).to.deep.equal([false, 0]);
    expect(grown.vectorOf(grown.slotOf(14_999))).to.deep.equal(added[4_999]);
    expect(grown.vectorOf(grown.slotOf(2_999))).to.deep.equal(filled(40, 3_000).vectorOf(2_999));
    // A move back called off (on disk again before it ends) leaves the vectors in their file.
    const back = filled(40, 500);
    back.toDisk(files.open(40));
    back.beginToRam();
    back.toRamStep(100);
    back.stayOnDisk();
    expect([back.movingToRam, back.onDisk, back.toRamStep(100), openFloatFiles(dir.path)]).to.deep.equal([false, true, false, 1]);
    expect(back.vectorOf(499)).to.deep.equal(filled(40, 500).vectorOf(499));
  });

  it('moves a collection\'s floats into their file and back in the indexer\'s turns when on_disk changes over many points, searching them where they were until then', () => {
    const config: CollectionConfig = { size: 128, distance: 'Euclid', m: 8, m0: 16, efConstruct: 16, ml: 1 / Math.log(8) };
    const c = new Collection('t', config, 7);
    c.useFloatFiles(new DataDirFloatFiles(dir.path));
    // 4.2M values (more than the 4M moved at once); none linked: searches scan them exactly.
    c.upsert(randomVectors(33_000, 128, 12).map((vector, id) => ({ id, vector, payload: {}, labels: [] })));
    const queries = randomVectors(3, 128, 13);
    const top = () => queries.map((vector) => searchCollection(c, { vector, limit: 5, offset: 0, ef: 16, filter: null, scoreThreshold: null }).map((h) => [h.id, h.score]));
    const before = top();
    c.settings = { vectors: { '': { on_disk: true } } };
    expect([c.store.onDisk, c.store.movingToDisk, c.optimizing], 'moving: the collection optimizes (status yellow)').to.deep.equal([false, true, true]);
    let turns = 0;
    while (c.optimizing) {
      if (turns % 100 === 0) expect(top(), `turn ${turns}`).to.deep.equal(before);
      c.indexSome(0);
      turns++;
    }
    // 33,000 slots, 64 a turn (8,192 values).
    expect(turns).to.be.within(500, 530);
    expect([c.store.onDisk, c.store.vectors.length, openFloatFiles(dir.path)]).to.deep.equal([true, 0, 1]);
    expect(top(), 'the same answers from the file').to.deep.equal(before);
    // Back into RAM the same way: read from the file until the last step.
    c.settings = {};
    expect([c.store.onDisk, c.store.movingToRam, c.optimizing]).to.deep.equal([true, true, true]);
    turns = 0;
    while (c.optimizing) {
      if (turns % 100 === 0) expect(top(), `turn ${turns} back`).to.deep.equal(before);
      c.indexSome(0);
      turns++;
    }
    expect(turns).to.be.within(500, 530);
    expect([c.store.onDisk, openFloatFiles(dir.path)]).to.deep.equal([false, 0]);
    expect(top()).to.deep.equal(before);
    // Set on_disk and back before the move ends: it is called off, and the floats never left RAM.
    c.settings = { vectors: { '': { on_disk: true } } };
    c.indexSome(0);
    c.settings = {};
    expect([c.store.onDisk, c.store.movingToDisk, c.optimizing, openFloatFiles(dir.path)]).to.deep.equal([false, false, false, 0]);
    expect(top()).to.deep.equal(before);
  });

  it('loads a snapshot of a collection whose floats are on disk straight into its file, never into RAM, given the float files', () => {
    const config: CollectionConfig = { size: 16, distance: 'Euclid', m: 8, m0: 16, efConstruct: 64, ml: 1 / Math.log(8) };
    const c = new Collection('disk', config, 7);
    c.upsert(randomVectors(20_000, 16, 9).map((vector, id) => ({ id, vector, payload: {}, labels: [] })));
    while (c.indexSome(5000));
    c.settings = { quantization_config: { scalar: { type: 'int8' }, binary: null, product: null }, vectors: { '': { on_disk: true } } };
    const bytes = encodeSnapshot(new Map([['disk', c]]), 3);
    const loaded = decodeSnapshot(bytes, new DataDirFloatFiles(dir.path)).collections.get('disk')!;
    // Settings come first (format 7): the store was on disk before its first vector was read.
    expect([loaded.store.onDisk, loaded.store.vectors.length, openFloatFiles(dir.path)]).to.deep.equal([true, 0, 1]);
    const inRam = decodeSnapshot(bytes).collections.get('disk')!;
    expect(inRam.store.onDisk, 'no float files: in RAM').to.equal(false);
    const queries = randomVectors(10, 16, 13);
    const top = (x: Collection) => queries.map((vector) => searchCollection(x, { vector, limit: 10, offset: 0, ef: 64, filter: null, scoreThreshold: null }).map((h) => [h.id, h.score]));
    expect(top(loaded)).to.deep.equal(top(inRam));
    expect(Buffer.concat(encodeSnapshot(new Map([['disk', loaded]]), 3)).equals(Buffer.concat(bytes)), 'the same snapshot bytes').to.equal(true);
  });

  for (const [distance, dim] of [['Cosine', 96], ['Dot', 48]] as const) {
    it(`links a ${distance} graph whose floats are on disk on its int8 codes, with recall@10 >= 0.95 after rescoring`, () => {
      const config: CollectionConfig = { size: dim, distance, m: 16, m0: 32, efConstruct: 100, ml: 1 / Math.log(16) };
      const vectors = randomVectors(3000, dim, 12);
      const c = new Collection('coded', config, 3);
      c.useFloatFiles(new DataDirFloatFiles(dir.path));
      c.settings = { vectors: { '': { on_disk: true } }, quantization_config: { scalar: { type: 'int8' }, binary: null, product: null } };
      expect(c.index.linkOn, 'linking on the codes').to.equal(c.quantized);
      c.upsert(vectors.map((vector, id) => ({ id, vector, payload: {}, labels: [] })));
      while (c.indexSome(1000));
      const prepared = vectors.map((v) => c.prepareQuery(v));
      const score = (q: Float32Array, v: Float32Array) => v.reduce((sum, x, i) => sum + x * q[i]!, 0);
      let found = 0;
      const queries = randomVectors(40, dim, 13);
      for (const query of queries) {
        const q = c.prepareQuery(query);
        const exact = prepared.map((v, id) => [score(q, v), id] as const).sort((a, b) => b[0] - a[0] || a[1] - b[1]).slice(0, 10).map(([, id]) => id);
        const hits = searchCollection(c, { vector: query, limit: 10, offset: 0, ef: 64, filter: null, scoreThreshold: null }).map((h) => h.id);
        found += hits.filter((id) => exact.includes(id as number)).length;
      }
      expect(found / (10 * queries.length)).to.be.at.least(0.95);
      c.settings = { ...c.settings, vectors: { '': { on_disk: false } } };
      expect(c.index.linkOn, 'in RAM, linking on the floats').to.equal(null);
    });
  }
});
