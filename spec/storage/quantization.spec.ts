import { expect } from 'chai';
import { Collection } from '../../storage/collection.js';
import type { CollectionConfig, Distance } from '../../storage/events/types.js';
import { int8KernelsFor } from '../../storage/views/int8-kernels.js';
import { dotInt8, l2Int8 } from '../../storage/views/int8-scalar-kernels.js';
import { binaryKernelsFor, hammingBits } from '../../storage/views/binary-kernels.js';
import { DEFAULT_QUANTIZATION, searchCollection, type QuantizationParams } from '../../query/search/vector-search.js';
import { squaredEuclid } from '../../storage/views/distance.js';
import { quietDataset, recallAt10, seeded, type Dataset } from '../../tools/bench/dataset.js';
import { decodeEvent, encodeEvent } from '../../storage/events/codec.js';
import { decodeSnapshot, encodeSnapshot } from '../../storage/snapshot/snapshot-codec.js';
import { READER_SLOTS } from '../../storage/views/point-store.js';
import { codeHeadRows } from '../../storage/views/code-memory.js';

const BINARY = { quantization_config: { scalar: null, binary: {}, product: null } };
const INT8 = { quantization_config: { scalar: { type: 'int8' }, binary: null, product: null } };

function build(ds: Dataset, settings: Collection['settings']): Collection {
  const config: CollectionConfig = { size: ds.dim, distance: ds.distance, m: 16, m0: 32, efConstruct: 64, ml: 1 / Math.log(16) };
  const c = new Collection('q', config, 7);
  c.settings = settings;
  c.upsert(Array.from({ length: ds.count }, (_, id) => ({ id, vector: ds.data.subarray(id * ds.dim, (id + 1) * ds.dim), payload: {}, labels: [] })));
  while (c.indexSome(1000));
  return c;
}

function search(c: Collection, ds: Dataset, q: number, quantization?: QuantizationParams) {
  return searchCollection(c, { vector: ds.queries.subarray(q * ds.dim, (q + 1) * ds.dim), limit: 10, offset: 0, ef: 100, filter: null, scoreThreshold: null, quantization });
}

function recall(c: Collection, ds: Dataset, quantization?: QuantizationParams): number {
  let sum = 0;
  for (let q = 0; q < ds.queryCount; q++) sum += recallAt10(ds.truth[q]!, search(c, ds, q, quantization).map((h) => h.id as number));
  return sum / ds.queryCount;
}

describe('storage/views: scalar (int8) and binary quantization', function () {
  this.timeout(120_000);

  it('computes with the scalar twins exactly what the int8 SIMD kernels compute', () => {
    const memory = new WebAssembly.Memory({ initial: 1 });
    const kernels = int8KernelsFor(memory);
    const codes = new Int8Array(memory.buffer);
    const next = seeded(3);
    for (let blocks = 1; blocks <= 12; blocks++) {
      const bytes = blocks * 16;
      for (let trial = 0; trial < 20; trial++) {
        // Extremes in some trials: ±127 everywhere gives the largest sums.
        for (let i = 0; i < 2 * bytes; i++) codes[i] = trial % 5 === 0 ? (i % 3 === 0 ? 127 : -127) : Math.round(next() * 254) - 127;
        expect(kernels.l2(0, bytes, bytes)).to.equal(l2Int8(codes, 0, codes, bytes, bytes));
        expect(kernels.dot(0, bytes, bytes)).to.equal(dotInt8(codes, 0, codes, bytes, bytes));
      }
    }
    codes.fill(127, 0, 16);
    codes.fill(-127, 16, 32);
    expect(kernels.dot(0, 16, 16), 'a known answer').to.equal(-16 * 127 * 127);
    expect(kernels.l2(0, 16, 16)).to.equal(16 * 254 * 254);
    // Batched (l2Many, dotMany): rows of 48 bytes from byte 1024, slot numbers at 0, float64 results at 512.
    for (let i = 1024; i < 1024 + 30 * 48; i++) codes[i] = Math.round(next() * 254) - 127;
    const chosen = [4, 0, 29, 4, 17, 2];
    new Uint32Array(memory.buffer, 0, chosen.length).set(chosen);
    const out = new Float64Array(memory.buffer, 512, chosen.length);
    for (const [many, one] of [[kernels.l2Many, kernels.l2], [kernels.dotMany, kernels.dot]] as const) {
      many(1024 + 7 * 48, 0, chosen.length, 512, 1024, 48, 48);
      chosen.forEach((slot, i) => expect(out[i]).to.equal(one(1024 + 7 * 48, 1024 + slot * 48, 48)));
    }
  });

  it('estimates a Dot query from the codes alone: close to the float product on data far from 0, and no per-point sum read', () => {
    const dim = 64;
    const count = 2000;
    const next = seeded(21);
    // Every value in [0.5, 1.5]: the codes' range is centred far from 0, so the offset matters.
    const data = Float32Array.from({ length: count * dim }, () => 0.5 + next());
    const c = new Collection('d', { size: dim, distance: 'Dot', m: 16, m0: 32, efConstruct: 32, ml: 1 / Math.log(16) }, 7);
    c.settings = INT8;
    c.upsert(Array.from({ length: count }, (_, id) => ({ id, vector: data.subarray(id * dim, (id + 1) * dim), payload: {}, labels: [] })));
    while (c.indexSome(1000));
    const codes = c.quantized!;
    const q = Float32Array.from({ length: dim }, () => next() * 2 - 1);
    codes.setQuery(q);
    const product = (slot: number) => q.reduce((sum, v, i) => sum + v * data[slot * dim + i]!, 0);
    const estimates = Array.from({ length: count }, (_, slot) => -codes.toQuery(slot));
    for (let slot = 0; slot < count; slot++) expect(Math.abs(estimates[slot]! - product(slot)), `slot ${slot}`).to.be.below(0.05);
    // The per-point sums of codes serve distances between two points only (linking on codes).
    (codes as unknown as { sums: Int32Array }).sums.fill(12345);
    codes.setQuery(q);
    expect(Array.from({ length: count }, (_, slot) => -codes.toQuery(slot))).to.deep.equal(estimates);
  });

  for (const [dim, distance] of [[128, 'Cosine'], [128, 'Euclid'], [128, 'Dot'], [768, 'Cosine']] as [number, Distance][]) {
    it(`finds the float search's neighbours with recall@10 >= 0.95 walking int8 codes and rescoring: 5,000 x ${dim} ${distance}`, () => {
      const ds = quietDataset(5_000, dim, distance, 40, dim + distance.length);
      const c = build(ds, INT8);
      expect(c.quantized, 'the codes are made').to.not.equal(null);
      expect(c.quantized!.byteLength, 'a byte a dimension (a query row and a batch area for each searching thread besides)').to.equal((c.store.capacity + codeHeadRows(dim, true)) * dim);
      expect(c.quantized!.byteLength / c.store.vectors.byteLength).to.be.below(0.26);
      const r = recall(c, ds);
      expect(r).to.be.at.least(0.95);
      // Without rescoring the scores are the codes' estimates: close to the floats' but not equal to them.
      const floats = search(c, ds, 0, { ignore: true, rescore: true, oversampling: 1 });
      const estimated = search(c, ds, 0, { ignore: false, rescore: false, oversampling: 1 });
      expect(estimated.map((h) => h.score)).to.not.deep.equal(floats.map((h) => h.score));
      expect(recallAt10(ds.truth[0]!, estimated.map((h) => h.id as number))).to.be.at.least(0.5);
    });
  }

  it('answers ignore: true exactly as an unquantized collection does, and rescored hits with float scores', () => {
    const ds = quietDataset(3_000, 64, 'Euclid', 20, 11);
    const plain = build(ds, {});
    const quantized = build(ds, INT8);
    for (let q = 0; q < ds.queryCount; q++) {
      expect(search(quantized, ds, q, { ignore: true, rescore: true, oversampling: 1 })).to.deep.equal(search(plain, ds, q));
      const rescored = search(quantized, ds, q);
      const exact = new Map(search(plain, ds, q).map((h) => [h.id, h.score]));
      for (const h of rescored) if (exact.has(h.id)) expect(h.score, 'the float score').to.equal(exact.get(h.id));
    }
  });

  it('rescores the first 4 x limit of an int8 walk\'s candidates (of ef 100), and all of them for binary codes', () => {
    const LIMIT = 2;
    const ds = quietDataset(3_000, 64, 'Euclid', 30, 41);
    const top = (c: Collection, q: number, limit: number, quantization: QuantizationParams) =>
      searchCollection(c, { vector: ds.queries.subarray(q * ds.dim, (q + 1) * ds.dim), limit, offset: 0, ef: 100, filter: null, scoreThreshold: null, quantization }).map((h) => h.id as number);
    // The k nearest by the floats among candidate ids (the answer rescoring those candidates gives).
    const byFloats = (q: number, ids: number[], k: number) =>
      ids.map((id) => [squaredEuclid(ds.queries, q * ds.dim, ds.data, id * ds.dim, ds.dim), id] as const).sort((a, b) => a[0] - b[0]).slice(0, k).map(([, id]) => id);
    const codesOnly = { ignore: false, rescore: false, oversampling: 1 };
    // A coarse range (half the values clamped) ranks far from the floats: rescoring 8 or 100 candidates then differs.
    const coarse = build(ds, { quantization_config: { scalar: { type: 'int8', quantile: 0.5 }, binary: null, product: null } });
    let differ = 0;
    for (let q = 0; q < ds.queryCount; q++) {
      const answer = top(coarse, q, LIMIT, DEFAULT_QUANTIZATION);
      expect(answer).to.deep.equal(byFloats(q, top(coarse, q, 4 * LIMIT, codesOnly), LIMIT));
      if (answer.join() !== byFloats(q, top(coarse, q, 100, codesOnly), LIMIT).join()) differ++;
    }
    expect(differ, 'queries where the 100 candidates rescored would answer otherwise').to.be.greaterThan(0);
    const binary = build(ds, BINARY);
    for (let q = 0; q < ds.queryCount; q++) expect(top(binary, q, LIMIT, DEFAULT_QUANTIZATION)).to.deep.equal(byFloats(q, top(binary, q, 100, codesOnly), LIMIT));
  });

  it('quantizes named dense vectors too, each with its own codes', () => {
    const ds = quietDataset(2_000, 48, 'Cosine', 20, 13);
    const named = { size: 48, distance: 'Cosine' as const, m: 16, m0: 32, efConstruct: 64, ml: 1 / Math.log(16), onDisk: false };
    const c = new Collection('n', { size: 0, distance: 'Cosine', m: 16, m0: 32, efConstruct: 64, ml: 1 / Math.log(16), named: { text: named } }, 3);
    c.settings = INT8;
    c.upsert(Array.from({ length: ds.count }, (_, id) => ({ id, vector: null, named: { text: ds.data.slice(id * 48, (id + 1) * 48) }, payload: {}, labels: [] })));
    while (c.indexSome(1000));
    expect(c.quantized, 'no unnamed vector, no codes for it').to.equal(null);
    expect(c.named.get('text')!.quantized).to.not.equal(null);
    const run = (q: number, quantization: QuantizationParams) =>
      searchCollection(c, { vector: ds.queries.subarray(q * 48, (q + 1) * 48), using: 'text', limit: 10, offset: 0, ef: 100, filter: null, scoreThreshold: null, quantization });
    let sum = 0;
    for (let q = 0; q < ds.queryCount; q++) sum += recallAt10(ds.truth[q]!, run(q, { ignore: false, rescore: true, oversampling: 1 }).map((h) => h.id as number));
    expect(sum / ds.queryCount).to.be.at.least(0.95);
    const floats = run(0, { ignore: true, rescore: true, oversampling: 1 }).map((h) => h.score);
    expect(run(0, { ignore: false, rescore: false, oversampling: 1 }).map((h) => h.score)).to.not.deep.equal(floats);
  });

  it('keeps the config through a snapshot, with the codes rebuilt from the restored floats', () => {
    const ds = quietDataset(2_000, 40, 'Euclid', 10, 21);
    const c = build(ds, INT8);
    const chunks = encodeSnapshot(new Map([['q', c]]), 5);
    const bytes = new Uint8Array(chunks.reduce((n, b) => n + b.length, 0));
    chunks.reduce((at, b) => (bytes.set(b, at), at + b.length), 0);
    const copy = decodeSnapshot(bytes).collections.get('q')!;
    expect(copy.settings).to.deep.equal(INT8);
    expect(copy.quantized).to.not.equal(null);
    const estimate = { ignore: false, rescore: false, oversampling: 1 };
    for (let q = 0; q < ds.queryCount; q++) expect(search(copy, ds, q, estimate)).to.deep.equal(search(c, ds, q, estimate));
  });

  it('logs the settings a collection is created with in its create_collection entry, and none when there are none', () => {
    const config: CollectionConfig = { size: 4, distance: 'Dot', m: 16, m0: 32, efConstruct: 64, ml: 1 / Math.log(16) };
    const plain = encodeEvent({ type: 'create_collection', name: 'c', config });
    expect(decodeEvent(plain)).to.deep.equal({ type: 'create_collection', name: 'c', config });
    const quantized = encodeEvent({ type: 'create_collection', name: 'c', config, settings: INT8 });
    expect(quantized.length).to.be.above(plain.length);
    expect(decodeEvent(quantized)).to.deep.equal({ type: 'create_collection', name: 'c', config, settings: INT8 });
  });

  it('codes points as the indexer links them, re-places its range as the data grows, and drops the codes when turned off', () => {
    const ds = quietDataset(2_000, 32, 'Dot', 20, 5);
    const c = build({ ...ds, count: 100 }, INT8);
    c.upsert(Array.from({ length: 1_900 }, (_, i) => ({ id: 100 + i, vector: ds.data.subarray((100 + i) * 32, (101 + i) * 32), payload: {}, labels: [] })));
    while (c.indexSome(1000));
    expect(recall(c, ds)).to.be.at.least(0.95);
    c.settings = { quantization_config: { scalar: null, binary: null, product: null } };
    expect(c.quantized).to.equal(null);
  });

  it('re-codes every point on a new range a step at a time once the data has doubled, walking the current codes meanwhile', () => {
    const dim = 32;
    const next = seeded(31);
    const vectors = (n: number, spread: number): Float32Array[] => Array.from({ length: n }, () => Float32Array.from({ length: dim }, () => (next() - 0.5) * spread));
    const config: CollectionConfig = { size: dim, distance: 'Euclid', m: 16, m0: 32, efConstruct: 64, ml: 1 / Math.log(16) };
    const c = new Collection('q', config, 7);
    c.settings = INT8;
    const all = [...vectors(1_000, 1), ...vectors(1_500, 4)];
    c.upsert(all.slice(0, 1_000).map((vector, id) => ({ id, vector, payload: {}, labels: [] })));
    while (c.indexSome(1000));
    type Codes = { mid: number; step: number; recoding: boolean; stride: number; headRows: number; segments: Int8Array[]; sums: Int32Array };
    const codes = c.quantized as unknown as Codes;
    const first = { mid: codes.mid, step: codes.step };
    c.upsert(all.slice(1_000).map((vector, i) => ({ id: 1_000 + i, vector, payload: {}, labels: [] })));
    const nearest = (id: number) => searchCollection(c, { vector: all[id]!, limit: 1, offset: 0, ef: 64, filter: null, scoreThreshold: null, quantization: DEFAULT_QUANTIZATION })[0]?.id;
    let linked = 1_000;
    while (!codes.recoding && linked < all.length) {
      c.indexSome(1);
      linked++;
    }
    expect(linked, 'the re-code began with the first point coded once the live count had doubled').to.equal(1_001);
    let steps = 0;
    while (codes.recoding) {
      expect({ mid: codes.mid, step: codes.step }, 'the current range, until the new codes are whole').to.deep.equal(first);
      expect(nearest(steps * 37), `point ${steps * 37} found by its own vector on the current codes`).to.equal(steps * 37);
      // Every other turn links no point: the indexer's turns take steps of the re-code all the same.
      c.indexSome(steps % 2);
      steps++;
    }
    // 2,500 slots of 32 values read, then every slot coded, 8,192 values a step (two a turn that links a point).
    expect(steps, 'indexer turns while the re-code went on').to.be.within(10, 30);
    expect(codes.step, 'the new range covers the wider values').to.be.above(2 * first.step);
    while (c.indexSome(1000));
    // Every point, those linked during the re-code too, coded on the new range.
    for (let id = 0; id < all.length; id++) {
      const v = all[id]!;
      const at = codes.stride * (id + codes.headRows);
      let sum = 0;
      for (let i = 0; i < dim; i++) {
        const expected = Math.max(-127, Math.min(127, Math.round((v[i]! - codes.mid) * (1 / codes.step))));
        expect(codes.segments[0]![at + i], `point ${id}, value ${i}`).to.equal(expected);
        sum += expected;
      }
      expect(codes.sums[id], `point ${id}'s sum`).to.equal(sum);
    }
    for (let id = 0; id < all.length; id += 97) expect(nearest(id)).to.equal(id);
  });

  for (const [method, dim, count] of [['int8', 256, 4_200], ['binary', 512, 2_100]] as const) {
    it(`${method}: turned on for 1M stored values, codes them a step at a time, searches walking the floats until the codes are whole`, () => {
      const next = seeded(dim);
      const all = Array.from({ length: count + 300 }, () => Float32Array.from({ length: dim }, () => next() - 0.5));
      const config: CollectionConfig = { size: dim, distance: 'Euclid', m: 16, m0: 32, efConstruct: 100, ml: 1 / Math.log(16) };
      const c = new Collection('q', config, 7);
      c.upsert(all.slice(0, count).map((vector, id) => ({ id, vector, payload: {}, labels: [] })));
      while (c.indexSome(1000));
      c.settings = method === 'int8' ? INT8 : BINARY;
      expect(c.quantized, 'no codes walked before they are whole').to.equal(null);
      expect(c.optimizing, 'the collection optimizes (status yellow) while they are made').to.equal(true);
      // Points written meanwhile are coded as the indexer links them, in whatever step the build is.
      c.upsert(all.slice(count).map((vector, i) => ({ id: count + i, vector, payload: {}, labels: [] })));
      const nearest = (id: number) => searchCollection(c, { vector: all[id]!, limit: 1, offset: 0, ef: 200, filter: null, scoreThreshold: null, quantization: DEFAULT_QUANTIZATION })[0]?.id;
      let steps = 0;
      while (c.optimizing) {
        expect(c.quantized, `no codes walked at step ${steps}`).to.equal(null);
        if (steps % 10 === 0) expect(nearest(steps % count), `point ${steps % count} found by its own vector on the floats`).to.equal(steps % count);
        // Every other turn links no point: the indexer's turns take steps of the build all the same.
        const more = c.indexSome(steps % 2);
        if (c.optimizing) expect(more, 'the indexer is told work is left while the build goes on').to.equal(true);
        steps++;
      }
      // 1,075,200 values, 8,192 a step: int8 reads them for its range, then codes them; binary only codes.
      expect(steps, 'indexer turns while the codes were made').to.be.within(method === 'int8' ? 100 : 50, 400);
      while (c.indexSome(1000));
      const codes = c.quantized as unknown as { mid: number; step: number; stride: number; headRows: number; segments: Int8Array[] | Uint8Array[]; whole: boolean };
      expect(codes, 'the codes walked once whole').to.not.equal(null);
      expect(codes.whole).to.equal(true);
      // Every point coded as at once: the range read from the points stored when the build began.
      // The reference: those points loaded from a snapshot, which codes them at once.
      const first = new Collection('q', config, 7);
      first.upsert(all.slice(0, count).map((vector, id) => ({ id, vector, payload: {}, labels: [] })));
      first.settings = method === 'int8' ? INT8 : BINARY;
      const chunks = encodeSnapshot(new Map([['q', first]]), 5);
      const bytes = new Uint8Array(chunks.reduce((n, b) => n + b.length, 0));
      chunks.reduce((at, b) => (bytes.set(b, at), at + b.length), 0);
      const loaded = decodeSnapshot(bytes).collections.get('q')!;
      expect(loaded.optimizing, 'a collection loaded is coded at once').to.equal(false);
      const reference = loaded.quantized as unknown as typeof codes;
      if (method === 'int8') expect({ mid: codes.mid, step: codes.step }).to.deep.equal({ mid: reference.mid, step: reference.step });
      const rows = method === 'int8' ? codes.headRows : READER_SLOTS;
      for (let id = 0; id < all.length; id++) {
        const at = codes.stride * (id + rows);
        const row = Array.from(codes.segments[0]!.subarray(at, at + dim));
        const v = all[id]!;
        const expected = Array.from({ length: dim }, (_, i) =>
          method === 'int8' ? Math.max(-127, Math.min(127, Math.round((v[i]! - codes.mid) * (1 / codes.step)))) || 0 : 0,
        );
        if (method === 'binary') for (let i = 0; i < dim; i++) if (v[i]! > 0) expected[i >> 3]! |= 1 << (i & 7);
        expect(method === 'int8' ? row : row.slice(0, dim / 8), `point ${id}'s codes`).to.deep.equal(method === 'int8' ? expected : expected.slice(0, dim / 8));
      }
      for (let id = 0; id < all.length; id += 211) expect(nearest(id), `point ${id} found on the codes`).to.equal(id);
    });
  }

  it('asks for a full collection (FloatFiles.released) when codes are dropped or replaced, not when they are only made', () => {
    const c = build(quietDataset(300, 16, 'Euclid', 1, 5), {});
    let released = 0;
    c.useFloatFiles({
      open: () => {
        throw new Error('no floats go to disk here');
      },
      released: () => released++,
    });
    c.settings = INT8;
    expect(released, 'codes made: nothing large let go of').to.equal(0);
    c.settings = BINARY;
    expect(released, 'int8 codes replaced').to.equal(1);
    c.settings = {};
    expect(released, 'binary codes dropped').to.equal(2);
  });

  it('binary: counts with the scalar twin exactly what the SIMD Hamming kernel counts', () => {
    const memory = new WebAssembly.Memory({ initial: 1 });
    const kernels = binaryKernelsFor(memory);
    const bits = new Uint8Array(memory.buffer);
    const next = seeded(8);
    for (let blocks = 1; blocks <= 12; blocks++) {
      const bytes = blocks * 16;
      for (let trial = 0; trial < 20; trial++) {
        for (let i = 0; i < 2 * bytes; i++) bits[i] = trial === 0 ? (i < bytes ? 0 : 255) : Math.floor(next() * 256);
        expect(kernels.hamming(0, bytes, bytes)).to.equal(hammingBits(bits, 0, bits, bytes, bytes));
      }
      expect(hammingBits(bits, 0, bits, 0, bytes)).to.equal(0);
    }
    bits.fill(0, 0, 16);
    bits.fill(255, 16, 32);
    expect(kernels.hamming(0, 16, 16), 'a known answer').to.equal(128);
  });

  for (const [distance, oversampling] of [['Cosine', 1], ['Dot', 4]] as [Distance, number][]) {
    it(`binary: walks 5,000 x 768 ${distance} on one bit a dimension and, rescored (oversampling ${oversampling}), keeps recall@10 >= 0.95`, () => {
      const ds = quietDataset(5_000, 768, distance, 40, 768 + distance.length);
      const c = build(ds, BINARY);
      expect(c.quantized!.byteLength, 'a bit a dimension (a query row for each searching thread besides)').to.equal((c.store.capacity + READER_SLOTS) * 96);
      expect(recall(c, ds, { ignore: false, rescore: true, oversampling })).to.be.at.least(0.95);
      // The bits alone rank far worse: the walk really ran on them.
      expect(recall(c, ds, { ignore: false, rescore: false, oversampling })).to.be.below(0.8);
      expect(search(c, ds, 0, { ignore: true, rescore: true, oversampling: 1 })).to.deep.equal(search(c, ds, 0, { ignore: true, rescore: false, oversampling: 1 }));
    });
  }
});
