import { expect } from 'chai';
import { Collection } from '../../storage/collection.js';
import { Engine } from '../../storage/engine/engine.js';
import type { CollectionConfig } from '../../storage/events/types.js';
import { MemoryLog } from '../../storage/log/memory-log.js';
import { SIMD_FROM_BYTES } from '../../storage/views/point-store.js';
import { dotScalar, l2Scalar } from '../../storage/views/scalar-kernels.js';
import { kernelsFor } from '../../storage/views/simd-kernels.js';
import { searchCollection } from '../../query/search/vector-search.js';

function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32 - 0.5;
  };
}

describe('storage/views: where vectors live', () => {
  it('computes with the scalar kernels exactly what the SIMD kernels compute, bit for bit', () => {
    const memory = new WebAssembly.Memory({ initial: 1 });
    const kernels = kernelsFor(memory);
    const floats = new Float32Array(memory.buffer);
    const next = random(5);
    for (let dim = 1; dim <= 67; dim++) {
      for (let trial = 0; trial < 20; trial++) {
        for (let i = 0; i < 2 * dim; i++) floats[i] = next() * 10 ** ((trial % 7) - 3);
        expect(l2Scalar(floats, 0, floats, dim, dim)).to.equal(kernels.l2(0, dim * 4, dim));
        expect(dotScalar(floats, 0, floats, dim, dim)).to.equal(kernels.dot(0, dim * 4, dim));
      }
    }
  });

  it('compares a row with many slots in one call (l2Many, dotMany) exactly as one at a time, as float64s', () => {
    const memory = new WebAssembly.Memory({ initial: 2 });
    const kernels = kernelsFor(memory);
    const floats = new Float32Array(memory.buffer);
    const next = random(11);
    const slotsAt = 0;
    const outAt = 512;
    const base = 2048;
    for (const dim of [1, 3, 4, 16, 17, 67]) {
      const stride = dim * 4;
      const rows = 40;
      for (let i = 0; i < rows * dim; i++) floats[base / 4 + i] = next() * 3;
      const slots = new Uint32Array(memory.buffer, slotsAt, 64);
      const out = new Float64Array(memory.buffer, outAt, 64);
      // Any order, repeats, and the row compared with itself.
      const chosen = [5, 0, 39, 5, 12, 3, 38, 1, 20, 20, 7];
      slots.set(chosen);
      for (const [name, many, one] of [['l2', kernels.l2Many, kernels.l2], ['dot', kernels.dotMany, kernels.dot]] as const) {
        out.fill(-1);
        many(base + 3 * stride, slotsAt, chosen.length, outAt, base, stride, dim);
        chosen.forEach((slot, i) => expect(out[i], `${name} ${dim}-d, slot ${slot}`).to.equal(one(base + 3 * stride, base + slot * stride, dim)));
        expect(out[chosen.length], 'nothing written past n').to.equal(-1);
        out[0] = -2;
        many(base, slotsAt, 0, outAt, base, stride, dim);
        expect(out[0], 'n = 0 writes nothing').to.equal(-2);
      }
    }
  });

  it('keeps a small store in a plain buffer and moves it into a WebAssembly memory as it grows, with the same results', () => {
    const config: CollectionConfig = { size: 64, distance: 'Cosine', m: 8, m0: 16, efConstruct: 40, ml: 0.5 };
    const next = random(9);
    const vectors = Array.from({ length: 6000 }, () => Float32Array.from({ length: 64 }, next));
    const c = new Collection('grows', config, 3);
    expect(c.store.kernels).to.equal(null);
    const small = (SIMD_FROM_BYTES / (64 * 4)) >> 1;
    c.upsert(vectors.slice(0, small).map((vector, id) => ({ id, vector, payload: {}, labels: [] })));
    while (c.indexSome(1000));
    expect(c.store.kernels, 'still plain').to.equal(null);
    const query = { vector: vectors[17]!, limit: 10, offset: 0, ef: 64, filter: null, scoreThreshold: null };
    const before = searchCollection(c, query);
    c.upsert(vectors.slice(small).map((vector, i) => ({ id: small + i, vector, payload: {}, labels: [] })));
    expect(c.store.kernels, 'moved into a memory').to.not.equal(null);
    expect(before[0]!.id).to.equal(17);
    // The vectors written before the move read back the same from the memory, and the graph built on them still finds them.
    expect(Array.from(c.store.vectorOf(c.store.slotOf(17)))).to.deep.equal(Array.from(c.prepareQuery(vectors[17]!)));
    expect(searchCollection(c, query).slice(0, 1)).to.deep.equal(before.slice(0, 1));
    while (c.indexSome(1000));
    expect(searchCollection(c, { ...query, vector: vectors[5000]! })[0]!.id).to.equal(5000);
  });

  it('creates and uses 20,000 collections in one process', () => {
    const engine = new Engine(new MemoryLog());
    const config: CollectionConfig = { size: 4, distance: 'Euclid', m: 8, m0: 16, efConstruct: 16, ml: 0.5 };
    for (let i = 0; i < 20_000; i++) {
      const name = `c${i}`;
      engine.submitSync({ type: 'create_collection', name, config });
      engine.submitSync({ type: 'upsert_points', collection: name, points: [0, 1, 2].map((id) => ({ id, vector: Float32Array.of(i, id, 0, 1), payload: { i }, labels: [] })) });
    }
    engine.flushIndex();
    expect(engine.collections.size).to.equal(20_000);
    for (const i of [0, 12_847, 19_999]) {
      const hits = searchCollection(engine.collections.get(`c${i}`)!, { vector: [i, 2, 0, 1], limit: 1, offset: 0, ef: 16, filter: null, scoreThreshold: null });
      expect(hits.map((h) => h.id)).to.deep.equal([2]);
    }
  });
});
