import { expect } from 'chai';
import { Collection } from '../../storage/collection.js';
import type { CollectionConfig, Distance } from '../../storage/events/types.js';
import { decodeSnapshot, encodeSnapshot } from '../../storage/snapshot/snapshot-codec.js';
import { PointStore } from '../../storage/views/point-store.js';
import { VectorSpace } from '../../storage/views/vector-space.js';
import type { FloatFile } from '../../storage/views/float-file.js';
import { parseFilter } from '../../query/filter/parse-filter.js';
import { searchCollection, searchCollectionPooled, type VectorQuery } from '../../query/search/vector-search.js';
import { useSearchPool } from '../helpers/search-pool.js';
import { MAX_MEMORY_BYTES, segmentMemoryBytes, setVectorSegmentBytes } from '../../storage/views/vector-segments.js';
import { randomVectors } from '../helpers/vectors.js';

/** 64 slots a segment: a few hundred points cross several boundaries. */
const SEGMENT = 64;
const config = (distance: Distance, size: number): CollectionConfig => ({ size, distance, m: 8, m0: 16, efConstruct: 40, ml: 1 / Math.log(8) });
const join = (parts: Uint8Array[]) => Uint8Array.from(parts.flatMap((p) => [...p]));
const query = (vector: Float32Array, extra: Partial<VectorQuery> = {}): VectorQuery => ({ vector, limit: 10, offset: 0, ef: 48, filter: null, scoreThreshold: null, ...extra });

/** The same points, deletes and re-inserts in a collection of one segment and in one of SEGMENT-slot segments. */
function pair(distance: Distance, n: number, dim: number, index = true): [Collection, Collection] {
  const made = [new Collection('c', config(distance, dim), 5), new Collection('c', config(distance, dim), 5, SEGMENT)] as [Collection, Collection];
  const vectors = randomVectors(n, dim, 3);
  for (const c of made) {
    c.upsert(vectors.map((vector, id) => ({ id, vector, payload: { even: id % 2 === 0 }, labels: [] })));
    if (index) while (c.indexSome(10_000));
    // Deleted slots in early segments are given to later points once the index lets them go.
    for (let id = 0; id < n; id += 7) c.remove(id);
    if (index) while (c.indexSome(10_000));
    c.upsert(randomVectors(n >> 3, dim, 4).map((vector, i) => ({ id: n + i, vector, payload: { even: i % 2 === 0 }, labels: [] })));
    if (index) while (c.indexSome(10_000));
  }
  return made;
}

/** A float file in RAM, as the store sees one (storage/views/float-file.ts). */
function memoryFile(dim: number): FloatFile {
  const rows: Float32Array[] = [];
  return {
    write: (slot, vectors, count) => {
      for (let k = 0; k < count; k++) rows[slot + k] = vectors.slice(k * dim, (k + 1) * dim);
    },
    read: (slot, into, count) => {
      for (let k = 0; k < count; k++) into.set(rows[slot + k] ?? new Float32Array(dim), k * dim);
    },
    close: () => undefined,
  };
}

describe('storage/views: vectors in segments', function () {
  this.timeout(120_000);

  it('places slots across segments of a power of two and reads each back where it was written', () => {
    const store = new PointStore(3, 4, 8);
    const vectors = randomVectors(50, 3, 1);
    for (const [id, v] of vectors.entries()) store.add(id, v, {}, []);
    expect(store.segments.length).to.equal(Math.ceil(store.capacity / 8));
    for (const [id, v] of vectors.entries()) expect(Array.from(store.vectorOf(store.slotOf(id)))).to.deep.equal(Array.from(v));
    expect(() => new PointStore(3, 4, 12)).to.throw(RangeError, /power of two/);
  });

  // 8 dimensions stay in plain arrays (scalar kernels); 256 move into a WebAssembly memory per segment (SIMD kernels, cross rows).
  for (const dim of [8, 256]) {
    for (const distance of ['Cosine', 'Euclid', 'Dot'] as Distance[]) {
      it(`answers graph walks, filtered scans and scans of pending points exactly as one segment does (${distance}, ${dim} dimensions)`, () => {
        const [one, many] = pair(distance, 1200, dim);
        expect(many.store.segments.length).to.be.greaterThan(10);
        expect(one.store.segments.length).to.equal(1);
        expect(many.store.kernels === null).to.equal(dim === 8);
        for (const q of randomVectors(12, dim, 9)) {
          expect(searchCollection(many, query(q))).to.deep.equal(searchCollection(one, query(q)));
          const filter = parseFilter({ must: [{ key: 'even', match: { value: true } }] });
          expect(searchCollection(many, query(q, { filter }))).to.deep.equal(searchCollection(one, query(q, { filter })));
        }
        const [pendingOne, pendingMany] = pair(distance, 300, dim, false);
        for (const q of randomVectors(5, dim, 10)) expect(searchCollection(pendingMany, query(q))).to.deep.equal(searchCollection(pendingOne, query(q)));
      });
    }
  }

  for (const [method, settings] of [
    ['int8', { quantization_config: { scalar: { type: 'int8' }, binary: null, product: null } }],
    ['binary', { quantization_config: { scalar: null, binary: {}, product: null } }],
  ] as const) {
    it(`walks ${method} codes in segments, with and without rescoring by the floats of every segment, as one segment does`, () => {
      const [one, many] = pair('Cosine', 1500, 256);
      for (const c of [one, many]) c.settings = settings;
      for (const q of randomVectors(10, 256, 11)) {
        for (const rescore of [true, false]) {
          const asked = query(q, { quantization: { ignore: false, rescore, oversampling: 2 } });
          expect(searchCollection(many, asked)).to.deep.equal(searchCollection(one, asked));
        }
      }
    });
  }

  it('writes the same snapshot bytes whatever the segments, and reads them back into segments', () => {
    const [one, many] = pair('Euclid', 900, 256);
    const bytesOne = join(encodeSnapshot(new Map([['c', one]]), 9));
    const bytesMany = join(encodeSnapshot(new Map([['c', many]]), 9));
    expect(Buffer.from(bytesMany).equals(Buffer.from(bytesOne))).to.equal(true);
    setVectorSegmentBytes(segmentMemoryBytes(256, SEGMENT));
    let restored: Collection;
    try {
      restored = decodeSnapshot(bytesOne).collections.get('c')!;
    } finally {
      setVectorSegmentBytes(MAX_MEMORY_BYTES);
    }
    expect(restored.store.segments.length).to.be.greaterThan(10);
    for (const q of randomVectors(5, 256, 12)) expect(searchCollection(restored, query(q))).to.deep.equal(searchCollection(one, query(q)));
  });

  it('moves the floats of several segments to a file and back (on_disk), linking on int8 codes in segments meanwhile, as one segment does', () => {
    const [one, many] = pair('Dot', 700, 256);
    const files = { open: (dim: number) => memoryFile(dim), released: () => undefined };
    const onDisk = { quantization_config: { scalar: { type: 'int8' as const }, binary: null, product: null }, vectors: { '': { on_disk: true } } };
    const asked = (q: Float32Array) => query(q, { quantization: { ignore: false, rescore: true, oversampling: 2 } });
    for (const c of [one, many]) {
      c.useFloatFiles(files);
      c.settings = onDisk;
    }
    expect(many.store.onDisk).to.equal(true);
    expect(many.store.segments.length).to.equal(0);
    for (const q of randomVectors(5, 256, 13)) expect(searchCollection(many, asked(q))).to.deep.equal(searchCollection(one, asked(q)));
    // Linked on the codes while the floats are in the file, across segment boundaries.
    for (const c of [one, many]) {
      c.upsert(randomVectors(200, 256, 14).map((vector, i) => ({ id: 10_000 + i, vector, payload: {}, labels: [] })));
      while (c.indexSome(10_000));
      c.settings = { quantization_config: onDisk.quantization_config };
    }
    expect(many.store.onDisk).to.equal(false);
    expect(many.store.segments.length).to.be.greaterThan(10);
    for (const q of randomVectors(5, 256, 15)) {
      expect(searchCollection(many, query(q))).to.deep.equal(searchCollection(one, query(q)));
      expect(searchCollection(many, asked(q))).to.deep.equal(searchCollection(one, asked(q)));
    }
  });

  it('gives a reader (a search worker\'s view of the store) the writer\'s distances across segments, in its own query areas and cross rows', () => {
    const [, many] = pair('Cosine', 600, 256);
    const layout = many.store.layout()!;
    const reader = new PointStore(256, 0, layout.segmentSlots, { layout, slot: 3 });
    expect(reader.crossOffset).to.not.equal(many.store.crossOffset);
    const space = new VectorSpace(reader, 'Cosine');
    const slots = [0, 1, 63, 64, 65, 130, 300, 599];
    for (const a of slots) for (const b of slots) expect(space.between(a, b), `slots ${a} and ${b}`).to.equal(many.space.between(a, b));
    const q = many.prepareQuery(randomVectors(1, 256, 19)[0]!);
    space.setQuery(q);
    many.space.setQuery(q);
    for (const x of slots) expect(space.toQuery(x)).to.equal(many.space.toQuery(x));
  });

  describe('search workers', () => {
    const searchPool = useSearchPool(2);

    it('walk a store of several segments in shared memories and link into its graph, answering as in place', async () => {
      const [one, many] = pair('Cosine', 2000, 256);
      expect(many.store.layout()!.memories.length).to.be.greaterThan(10);
      const walks = searchPool().walks;
      for (const q of randomVectors(10, 256, 16)) expect(await searchCollectionPooled(many, query(q))).to.deep.equal(searchCollection(one, query(q)));
      expect(searchPool().walks).to.equal(walks + 10);
      // New points in new segments, linked by the workers (distances across segments in their own cross rows); the next walk takes the new layout.
      const more = randomVectors(300, 256, 17);
      many.upsert(more.map((vector, i) => ({ id: 20_000 + i, vector, payload: {}, labels: [] })));
      for (let batches = many.indexElsewhere(searchPool(), 64); batches.length > 0; batches = many.indexElsewhere(searchPool(), 64)) await Promise.all(batches);
      expect(many.pendingCount).to.equal(0);
      for (const [i, q] of more.slice(0, 5).entries()) expect((await searchCollectionPooled(many, query(q)))[0]!.id).to.equal(20_000 + i);
    });

    // Enough codes for shared memories: int8 a byte a dimension, bits one a dimension (1,024 dimensions, 128 bytes a row).
    for (const [method, settings, dim] of [
      ['int8', { quantization_config: { scalar: { type: 'int8' }, binary: null, product: null } }, 256],
      ['binary', { quantization_config: { scalar: null, binary: {}, product: null } }, 1024],
    ] as const) {
      it(`walk ${method} codes in segments of shared memories and rescore here, answering as one segment in place`, async () => {
        const [one, many] = pair('Cosine', 2200, dim);
        // 2.2M bits are coded a step at a time: the indexer's turns finish them.
        for (const c of [one, many]) {
          c.settings = settings;
          while (c.indexSome(10_000));
        }
        expect(many.quantized!.layout()!.memories.length).to.be.greaterThan(10);
        const walks = searchPool().walks;
        for (const q of randomVectors(10, dim, 18)) {
          const asked = query(q, { quantization: { ignore: false, rescore: true, oversampling: 2 } });
          expect(await searchCollectionPooled(many, asked)).to.deep.equal(searchCollection(one, asked));
        }
        expect(searchPool().walks).to.equal(walks + 10);
      });
    }
  });
});
