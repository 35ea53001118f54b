import { expect } from 'chai';
import { Collection } from '../../storage/collection.js';
import type { CollectionConfig, Distance } from '../../storage/events/types.js';
import { searchCollection, searchCollectionPooled, type VectorQuery } from '../../query/search/vector-search.js';
import { useGraphWalker } from '../../query/search/graph-walker.js';
import { useGraphBuilder } from '../../storage/views/graph-builder.js';
import { SearchPool, SearchWorkerError, walkersFor } from '../../workers/search-pool.js';
import { useSearchPool } from '../helpers/search-pool.js';
import { randomVectors } from '../helpers/vectors.js';
import { collectGarbage } from '../../storage/floats/collect-garbage.js';
import type { ScalarLayout } from '../../storage/views/scalar-quantized.js';

const DIM = 32;

function config(distance: Distance, dim = DIM): CollectionConfig {
  return { size: dim, distance, m: 16, m0: 32, efConstruct: 100, ml: 1 / Math.log(16) };
}

function filled(distance: Distance, n: number, seed: number, dim = DIM): Collection {
  const c = new Collection('t', config(distance, dim), 42);
  c.upsert(randomVectors(n, dim, seed).map((vector, id) => ({ id, vector, payload: {}, labels: [] })));
  while (c.indexSome(10_000));
  return c;
}

/**
 * Whether `target` is collected by at most `collections` full collections, each in a turn of its
 * own (a WeakRef read in a turn keeps its target to the end of that turn). One is what the code
 * relies on; in the whole suite's process, with a large heap, V8 was now and then part way
 * through an incremental marking, for which the target had been allocated live, and the first
 * collection only finished that marking.
 */
async function collectedWithin(target: WeakRef<object>, collections: number): Promise<boolean> {
  for (let i = 0; i < collections; i++) {
    await new Promise((resolve) => setImmediate(resolve));
    collectGarbage();
    if (target.deref() === undefined) return true;
  }
  return false;
}

const query = (vector: Float32Array, ef = 64): VectorQuery => ({ vector, limit: 10, offset: 0, ef, filter: null, scoreThreshold: null });

describe('workers: the search pool walks graphs on worker threads over shared memory', function () {
  this.timeout(120_000);
  const searchPool = useSearchPool(2);

  for (const distance of ['Cosine', 'Euclid', 'Dot'] as Distance[]) {
    it(`answers exactly what the same search in place answers (${distance}, 1 and 2 workers)`, async () => {
      const c = filled(distance, 6000, 3);
      const single = new SearchPool(1);
      try {
        for (const [i, q] of randomVectors(40, DIM, 11).entries()) {
          const inPlace = searchCollection(c, query(q));
          useGraphWalker(i % 2 === 0 ? searchPool() : single);
          const pooled = await searchCollectionPooled(c, query(q));
          expect(pooled).to.deep.equal(inPlace);
        }
      } finally {
        useGraphWalker(searchPool());
        await single.close();
      }
      expect(searchPool().walks).to.be.greaterThan(0);
      expect(single.walks).to.equal(20);
    });
  }

  // Enough points for each kind of code to move into a shared memory (256 KiB): 32 bytes a point for int8 at 32 dimensions, 16 for bits at 128.
  for (const [method, settings, n, dim] of [
    ['int8', { quantization_config: { scalar: { type: 'int8' }, binary: null, product: null } }, 9000, DIM],
    ['binary', { quantization_config: { scalar: null, binary: {}, product: null } }, 17_000, 128],
  ] as const) {
    it(`walks on the ${method} codes in the worker and rescores here, answering as in place`, async () => {
      const c = filled('Cosine', n, 19, dim);
      c.settings = settings;
      // Codes for many stored points are made a step at a time (the binary ones here): the indexer's turns finish them.
      while (c.indexSome(10_000));
      expect(c.quantized, 'the codes are whole').to.not.equal(null);
      const walks = searchPool().walks;
      for (const q of randomVectors(20, dim, 23)) {
        const asked: VectorQuery = { ...query(q), quantization: { ignore: false, rescore: true, oversampling: 2 } };
        expect(await searchCollectionPooled(c, asked)).to.deep.equal(searchCollection(c, asked));
      }
      expect(searchPool().walks).to.equal(walks + 20);
      // Without rescoring the codes' own scores are the answer: that search stays on this thread.
      const unrescored: VectorQuery = { ...query(randomVectors(1, dim, 29)[0]!), quantization: { ignore: false, rescore: false, oversampling: 1 } };
      expect(await searchCollectionPooled(c, unrescored)).to.deep.equal(searchCollection(c, unrescored));
      expect(searchPool().walks).to.equal(walks + 20);
    });
  }

  it('keeps the workers\' readers while walks on the floats and on the int8 codes alternate, and lets go of them once the codes are dropped', async () => {
    const c = filled('Cosine', 9000, 31);
    c.settings = { quantization_config: { scalar: { type: 'int8' }, binary: null, product: null } };
    const asked = (q: Float32Array, ignore: boolean): VectorQuery => ({ ...query(q), quantization: { ignore, rescore: true, oversampling: 1 } });
    const [first, ...rest] = randomVectors(21, DIM, 37);
    await searchCollectionPooled(c, asked(first!, false));
    const walks = searchPool().walks;
    const forgotten = searchPool().forgotten;
    for (const [i, q] of rest.entries()) expect(await searchCollectionPooled(c, asked(q, i % 2 === 0))).to.deep.equal(searchCollection(c, asked(q, i % 2 === 0)));
    expect(searchPool().walks).to.equal(walks + 20);
    expect(searchPool().forgotten).to.equal(forgotten);
    // The codes' memory is let go of by the workers at the next walk, which is on the floats.
    c.settings = {};
    expect(await searchCollectionPooled(c, query(first!))).to.deep.equal(searchCollection(c, query(first!)));
    expect(searchPool().forgotten).to.equal(forgotten + 1);
  });

  it('has the workers let go of a graph they only linked once its codes move, as the graph builder', async () => {
    const c = new Collection('t', config('Euclid'), 42);
    c.upsert(randomVectors(6000, DIM, 35).map((vector, id) => ({ id, vector, payload: {}, labels: [] })));
    await Promise.all(c.indexElsewhere(searchPool(), 6000));
    while (c.indexSome(10_000));
    const forgotten = searchPool().forgotten;
    useGraphBuilder(searchPool());
    try {
      c.settings = { quantization_config: { scalar: { type: 'int8' }, binary: null, product: null } };
      expect(searchPool().forgotten, 'the linking workers are told, though no walk ever went out').to.equal(forgotten + 1);
    } finally {
      useGraphBuilder(null);
    }
  });

  it('has the workers let go of a graph whose codes or floats moved at once, as the graph builder, without waiting for a walk', async () => {
    const c = filled('Cosine', 9000, 33);
    const q = randomVectors(1, DIM, 34)[0]!;
    await searchCollectionPooled(c, query(q));
    const forgotten = searchPool().forgotten;
    useGraphBuilder(searchPool());
    try {
      // A lone client's walks stay on its thread: no walk would tell the workers.
      c.settings = { quantization_config: { scalar: { type: 'int8' }, binary: null, product: null } };
      expect(searchPool().forgotten, 'told when the codes were made').to.equal(forgotten + 1);
      c.settings = { quantization_config: { scalar: { type: 'int8' }, binary: null, product: null } };
      expect(searchPool().forgotten, 'nothing moved, nothing told').to.equal(forgotten + 1);
      c.settings = {};
      expect(searchPool().forgotten, 'a graph no worker read since is not told again').to.equal(forgotten + 1);
      expect(await searchCollectionPooled(c, query(q))).to.deep.equal(searchCollection(c, query(q)));
      c.settings = { quantization_config: { scalar: { type: 'int8' }, binary: null, product: null } };
      expect(searchPool().forgotten, 'told again once a walk read it').to.equal(forgotten + 2);
      const asked: VectorQuery = { ...query(q), quantization: { ignore: false, rescore: true, oversampling: 1 } };
      expect(await searchCollectionPooled(c, asked)).to.deep.equal(searchCollection(c, asked));
      expect(searchPool().forgotten, 'the next walk finds nothing more to let go of').to.equal(forgotten + 2);
    } finally {
      useGraphBuilder(null);
    }
  });

  it('holds the layouts it sent only weakly, so the codes a collection drops are freed by a collection on this thread, before any walk', async () => {
    const c = filled('Cosine', 9000, 41);
    c.settings = { quantization_config: { scalar: { type: 'int8' }, binary: null, product: null } };
    const asked: VectorQuery = { ...query(randomVectors(1, DIM, 43)[0]!), quantization: { ignore: false, rescore: true, oversampling: 1 } };
    await searchCollectionPooled(c, asked);
    const memory = new WeakRef((c.quantized!.layout() as ScalarLayout).memories[0]!);
    c.settings = {};
    expect(await collectedWithin(memory, 3)).to.equal(true);
  });

  it('lets go of the codes a collection drops after a search walked them in place, so a collection frees them', async () => {
    const c = filled('Cosine', 9000, 45);
    c.settings = { quantization_config: { scalar: { type: 'int8' }, binary: null, product: null } };
    const asked: VectorQuery = { ...query(randomVectors(1, DIM, 47)[0]!), quantization: { ignore: false, rescore: true, oversampling: 1 } };
    searchCollection(c, asked);
    const memory = new WeakRef((c.quantized!.layout() as ScalarLayout).memories[0]!);
    c.settings = {};
    expect(await collectedWithin(memory, 3), 'the graph still held the walk\'s distances to the codes').to.equal(true);
  });

  it('walks a named vector\'s own graph and answers collection points, as in place', async () => {
    const c = new Collection('t', { size: 0, distance: 'Cosine', m: 16, m0: 32, efConstruct: 100, ml: 1 / Math.log(16), named: { text: { size: DIM, distance: 'Euclid', m: 16, m0: 32, efConstruct: 100, ml: 1 / Math.log(16), onDisk: false } } }, 42);
    const vectors = randomVectors(4000, DIM, 17);
    // Every third point lacks the vector, so the named store's slots are not the collection's.
    c.upsert(vectors.map((v, id) => ({ id, vector: null, ...(id % 3 === 0 ? {} : { named: { text: v } }), payload: {}, labels: [] })));
    while (c.indexSome(10_000));
    const walks = searchPool().walks;
    for (const id of [1, 2, 3998]) {
      const q: VectorQuery = { ...query(vectors[id]!), using: 'text' };
      const pooled = await searchCollectionPooled(c, q);
      expect(pooled).to.deep.equal(searchCollection(c, q));
      expect(pooled[0]!.id).to.equal(id);
    }
    expect(searchPool().walks).to.equal(walks + 3);
  });

  it('walks a lone search on its first `walkers` workers only, the walks of a turn with several (a batch) on all, and links on all of them', async () => {
    expect(walkersFor(2, 2), 'two cores: one walker, the request thread keeps a core').to.equal(1);
    expect(walkersFor(8, 16)).to.equal(8);
    expect(walkersFor(4, 1), 'one core: still one').to.equal(1);
    expect(() => new SearchPool(2, 3)).to.throw(RangeError, /1 to 2/);
    const c = new Collection('t', config('Euclid'), 42);
    c.upsert(randomVectors(6000, DIM, 31).map((vector, id) => ({ id, vector, payload: {}, labels: [] })));
    const pool = new SearchPool(2, 1);
    const used = new Set<unknown>();
    pool.onDispatch = (thread) => used.add(thread);
    useGraphWalker(pool);
    try {
      await Promise.all(c.indexElsewhere(pool, 6000));
      expect(used.size, 'a batch to link is shared by both').to.equal(2);
      while (c.indexSome(10_000));
      used.clear();
      const queries = randomVectors(40, DIM, 32);
      for (const q of queries.slice(0, 10)) expect(await searchCollectionPooled(c, query(q))).to.deep.equal(searchCollection(c, query(q)));
      expect([...used], 'one walk a turn: each on the one walker').to.deep.equal([pool.threads()[0]]);
      const sent: unknown[] = [];
      pool.onDispatch = (thread) => sent.push(thread);
      const walkedBefore = pool.walkedBy();
      const answers = await Promise.all(queries.map((q) => searchCollectionPooled(c, query(q))));
      expect(answers).to.deep.equal(queries.map((q) => searchCollection(c, query(q))));
      expect(pool.walks).to.equal(50);
      const [walker, other] = pool.threads();
      expect(sent, '40 walks in one turn: one request, sent to both workers to share').to.have.members([walker, other]).and.have.length(2);
      const walked = pool.walkedBy().map((n, i) => n - walkedBefore[i]!);
      expect(walked[0]! + walked[1]!, 'each walk taken by one worker only').to.equal(40);
      sent.length = 0;
      await searchCollectionPooled(c, query(queries[0]!));
      expect(sent, 'the next turn starts again on the walker').to.deep.equal([walker]);
    } finally {
      useGraphWalker(searchPool());
      await pool.close();
    }
  });

  it('grows a graph that the workers link in place: every layout while the store doubles views the memory of the first, so no worker holds a copy', async () => {
    const c = new Collection('t', config('Euclid', 8), 42);
    const pool = new SearchPool(2);
    let id = 0;
    try {
      const layouts = [];
      // Each round doubles the store; a copy of the graph's arrays would be held by each worker until it collects.
      for (let round = 0; round < 7; round++) {
        const n = 1000 << round;
        c.upsert(randomVectors(n, 8, 60 + round).map((vector) => ({ id: id++, vector, payload: {}, labels: [] })));
        await Promise.all(c.indexElsewhere(pool, n));
        // Shared from 256 KiB of vectors on (8,192 points of 8 dimensions, the store's capacity then).
        const layout = c.index.layout();
        if (layout) layouts.push(layout);
      }
      expect(layouts.length, 'layouts of a shared store').to.equal(5);
      const [first] = layouts;
      for (const [round, layout] of layouts.entries()) {
        expect(layout.links0.buffer, `round ${round}: the layer-0 links`).to.equal(first!.links0.buffer);
        expect(layout.store.ids.buffer, `round ${round}: the store's ids`).to.equal(first!.store.ids.buffer);
      }
      expect(layouts.at(-1)!.levels.length, 'the graph grew').to.be.at.least(8 * first!.levels.length);
      await Promise.all(c.indexElsewhere(pool, c.pendingCount));
      expect(c.index.nodeCount, 'every node linked').to.equal(id);
      const [v] = randomVectors(1, 8, 60);
      const [hit] = await searchCollectionPooled(c, { ...query(v!), limit: 1 });
      expect(hit?.id, 'the first point of the first round, found through the workers').to.equal(0);
    } finally {
      await pool.close();
    }
  });

  it('finds a point written just before the search, pending or linked while the walk runs (read your write)', async () => {
    const c = filled('Euclid', 5000, 5);
    const fresh = randomVectors(200, DIM, 77);
    for (const [i, v] of fresh.entries()) {
      const id = 100_000 + i;
      c.upsert([{ id, vector: v, payload: {}, labels: [] }]);
      const searching = searchCollectionPooled(c, { ...query(v), limit: 1 });
      // Half the time the indexer links it while the walk is out.
      if (i % 2 === 0) while (c.indexSome(50));
      const [hit] = await searching;
      expect(hit?.id).to.equal(id);
    }
  });

  it('keeps walking whole graphs while the main thread inserts, grows and deletes, never answering a slot that was never live', async () => {
    const c = filled('Cosine', 2000, 9);
    const vectors = randomVectors(12_000, DIM, 21);
    const queries = randomVectors(50, DIM, 22);
    let next = 2000;
    let walks = 0;
    const everLive = new Set<number>(Array.from({ length: 2000 }, (_, i) => i));
    while (next < 2000 + vectors.length) {
      const batch = vectors.slice(next - 2000, next - 2000 + 400).map((vector, i) => ({ id: next + i, vector, payload: {}, labels: [] }));
      for (const p of batch) everLive.add(p.id);
      c.upsert(batch);
      next += batch.length;
      for (let id = next - 400; id < next - 300; id++) c.remove(id);
      const inFlight = queries.slice(0, 8).map((q) => searchCollectionPooled(c, query(q, 32)));
      // The writer goes on while the walks are out: links, repairs and growth of every array.
      while (c.indexSome(200));
      for (const hits of await Promise.all(inFlight)) {
        walks++;
        expect(hits).to.have.length(10);
        for (const h of hits) {
          expect(everLive.has(h.id as number)).to.equal(true);
          expect(c.store.slotOf(h.id)).to.equal(h.slot);
        }
      }
    }
    expect(walks).to.be.greaterThan(200);
  });

  it('leaves the first walk of a turn to the caller while inPlaceWhen answers true and no walk is out, and sends the rest', async () => {
    const c = filled('Euclid', 6000, 8);
    const pool = searchPool();
    const [a, b] = randomVectors(2, DIM, 9);
    useGraphWalker(pool);
    try {
      pool.inPlaceWhen = () => true;
      const before = { inPlace: pool.walksInPlace, walks: pool.walks };
      // One turn: the first is left here, the second goes out (one is out now, so the third does too).
      const turn = [searchCollectionPooled(c, query(a!)), searchCollectionPooled(c, query(b!)), searchCollectionPooled(c, query(a!))];
      const [first, second, third] = await Promise.all(turn);
      expect(first).to.deep.equal(searchCollection(c, query(a!)));
      expect(second).to.deep.equal(searchCollection(c, query(b!)));
      expect(third).to.deep.equal(first);
      expect(pool.walksInPlace - before.inPlace).to.equal(1);
      expect(pool.walks - before.walks).to.equal(2);
      // A later turn, nothing out: in place again; and never while inPlaceWhen answers false.
      await searchCollectionPooled(c, query(b!));
      expect(pool.walksInPlace - before.inPlace).to.equal(2);
      pool.inPlaceWhen = () => false;
      await searchCollectionPooled(c, query(b!));
      expect(pool.walksInPlace - before.inPlace).to.equal(2);
      expect(pool.walks - before.walks).to.equal(3);
    } finally {
      pool.inPlaceWhen = null;
    }
  });

  it('sends every probeEvery-th walk it would leave to the caller out all the same while probeWhen answers true, and none while it answers false', async () => {
    const c = filled('Euclid', 6000, 8);
    const pool = searchPool();
    const [a] = randomVectors(1, DIM, 10);
    useGraphWalker(pool);
    try {
      // Past the while after a walk found other requests in flight (the test before ends with one).
      await new Promise((r) => setTimeout(r, 50));
      pool.inPlaceWhen = () => true;
      pool.probeEvery = 8;
      pool.probeWhen = () => false;
      let before = { inPlace: pool.walksInPlace, walks: pool.walks };
      for (let i = 0; i < 16; i++) await searchCollectionPooled(c, query(a!));
      expect(pool.walksInPlace - before.inPlace).to.equal(16);
      pool.probeWhen = () => true;
      before = { inPlace: pool.walksInPlace, walks: pool.walks };
      for (let i = 0; i < 16; i++) expect(await searchCollectionPooled(c, query(a!))).to.deep.equal(searchCollection(c, query(a!)));
      expect(pool.walksInPlace - before.inPlace).to.equal(14);
      expect(pool.walks - before.walks).to.equal(2);
    } finally {
      pool.inPlaceWhen = null;
      pool.probeWhen = null;
    }
  });

  it('answers as in place the walks of one turn over several graphs, on floats and on int8 codes of one graph side by side', async () => {
    const coded = filled('Cosine', 9000, 41);
    coded.settings = { quantization_config: { scalar: { type: 'int8' }, binary: null, product: null } };
    const plain = filled('Euclid', 3000, 43);
    const asked = (q: Float32Array, ignore: boolean): VectorQuery => ({ ...query(q), quantization: { ignore, rescore: true, oversampling: 1 } });
    const queries = randomVectors(30, DIM, 47);
    const searches: [Collection, VectorQuery][] = queries.map((q, i) => (i % 3 === 2 ? [plain, query(q)] : [coded, asked(q, i % 3 === 1)]));
    const sent: unknown[] = [];
    searchPool().onDispatch = (thread) => sent.push(thread);
    const walks = searchPool().walks;
    try {
      const answers = await Promise.all(searches.map(([c, q]) => searchCollectionPooled(c, q)));
      expect(answers).to.deep.equal(searches.map(([c, q]) => searchCollection(c, q)));
    } finally {
      searchPool().onDispatch = null;
    }
    expect(searchPool().walks - walks, 'every walk on a worker').to.equal(30);
    expect(sent, 'one shared request, sent to both workers').to.have.length(2);
  });

  it('sends the walks of a turn before a write that gave their graph a new layout apart from the walks after it', async () => {
    const c = filled('Euclid', 3000, 19);
    const [q1, q2, q3] = randomVectors(3, DIM, 20);
    const first = searchCollection(c, query(q1!));
    const layout = c.index.layout();
    const sent: unknown[] = [];
    searchPool().onDispatch = (thread) => sent.push(thread);
    try {
      const p1 = searchCollectionPooled(c, query(q1!));
      c.upsert(randomVectors(3000, DIM, 21).map((vector, i) => ({ id: 3000 + i, vector, payload: {}, labels: [] })));
      expect(c.index.layout(), 'the write grew the graph\'s arrays').to.not.equal(layout);
      const rest = [searchCollectionPooled(c, query(q2!)), searchCollectionPooled(c, query(q3!))];
      expect(await p1).to.deep.equal(first);
      expect(await Promise.all(rest)).to.deep.equal([searchCollection(c, query(q2!)), searchCollection(c, query(q3!))]);
    } finally {
      searchPool().onDispatch = null;
    }
    const [walker, other] = searchPool().threads();
    expect(sent, 'the first walk alone to the walker, then the two after the write to both').to.deep.equal([walker, walker, other]);
  });

  /** Searches all of `queries` in one turn, each answer or the error it failed with. */
  const searchedTogether = (c: Collection, queries: Float32Array[]) =>
    Promise.all(queries.map((q) => searchCollectionPooled(c, query(q)).catch((err: unknown) => err)));

  it('answers every walk of a shared request that a worker stopping under it did not take, the other worker taking them', async () => {
    const c = filled('Euclid', 3000, 15);
    const queries = randomVectors(40, DIM, 16);
    const before = searchPool().replaced;
    const walkedBefore = searchPool().walkedBy()[1]!;
    // The first of the two workers the request is sent to stops before it comes.
    searchPool().onDispatch = (thread) => {
      searchPool().onDispatch = null;
      void thread.terminate();
    };
    const outcomes = await searchedTogether(c, queries);
    const failed = outcomes.filter((o) => o instanceof Error);
    for (const err of failed) expect(err).to.be.instanceOf(SearchWorkerError);
    outcomes.forEach((o, i) => o instanceof Error || expect(o).to.deep.equal(searchCollection(c, query(queries[i]!))));
    expect(searchPool().walkedBy()[1]! - walkedBefore, 'the other worker walked every walk answered').to.equal(outcomes.length - failed.length);
    // The other worker may have answered every walk before the stopped one's exit is seen.
    for (let i = 0; i < 500 && searchPool().replaced === before; i++) await new Promise((r) => setTimeout(r, 10));
    expect(searchPool().replaced).to.equal(before + 1);
    expect(await searchedTogether(c, queries)).to.deep.equal(queries.map((q) => searchCollection(c, query(q))));
  });

  it('fails every walk of a shared request when all its workers stop under it, none left waiting', async () => {
    const c = filled('Euclid', 3000, 17);
    const queries = randomVectors(12, DIM, 18);
    const before = searchPool().replaced;
    searchPool().onDispatch = (thread) => void thread.terminate();
    let outcomes: unknown[];
    try {
      outcomes = await searchedTogether(c, queries);
    } finally {
      searchPool().onDispatch = null;
    }
    for (const o of outcomes) expect(o).to.be.instanceOf(SearchWorkerError);
    expect(searchPool().replaced).to.equal(before + 2);
    expect(await searchedTogether(c, queries)).to.deep.equal(queries.map((q) => searchCollection(c, query(q))));
  });

  it('walks a lone search sent while a large batch is walked before the batch\'s last walk, answering both as in place', async () => {
    const c = filled('Euclid', 3000, 19);
    const batch = randomVectors(400, DIM, 20);
    const lone = randomVectors(1, DIM, 21)[0]!;
    const single = new SearchPool(1);
    useGraphWalker(single);
    try {
      // A first walk sends the worker the graph's layout: the lone walk after the batch then needs nothing new.
      await searchCollectionPooled(c, query(lone));
      const done: string[] = [];
      const batchAnswers = Promise.all(batch.map((q) => searchCollectionPooled(c, query(q, 200)).then((hits) => (done.push('batch'), hits))));
      await new Promise((resolve) => setImmediate(resolve));
      const loneAnswer = await searchCollectionPooled(c, query(lone));
      done.push('lone');
      expect(done, 'the lone search came back before any of the batch, whose answers come together at its end').to.deep.equal(['lone']);
      expect(loneAnswer).to.deep.equal(searchCollection(c, query(lone)));
      expect(await batchAnswers).to.deep.equal(batch.map((q) => searchCollection(c, query(q, 200))));
    } finally {
      useGraphWalker(searchPool());
      await single.close();
    }
  });

  it('walks a lone search sent while a batch of nodes is linked before that batch ends, and links every node', async () => {
    const c = filled('Euclid', 1000, 22);
    c.upsert(randomVectors(2000, DIM, 23).map((vector, i) => ({ id: 1000 + i, vector, payload: {}, labels: [] })));
    // Point 5's own vector: whatever else the walk meets while nodes are linked, point 5 comes first.
    const lone = randomVectors(1000, DIM, 22)[5]!;
    const single = new SearchPool(1);
    useGraphWalker(single);
    try {
      await searchCollectionPooled(c, query(lone));
      const linking = Promise.all(c.indexElsewhere(single, 2000));
      const loneAnswer = await searchCollectionPooled(c, query(lone));
      expect(single.linked, 'answered in the middle of the first 32 nodes to link').to.equal(0);
      expect(loneAnswer.map((h) => h.id)).to.have.length(10).and.to.include(5);
      expect(loneAnswer[0]!.id).to.equal(5);
      await linking;
      expect(single.linked).to.equal(2000);
      while (c.indexSome(10_000));
      expect(await searchCollectionPooled(c, query(lone))).to.deep.equal(searchCollection(c, query(lone)));
    } finally {
      useGraphWalker(searchPool());
      await single.close();
    }
  });

  it('replaces a worker that dies under a walk, failing only that walk', async () => {
    const c = filled('Euclid', 3000, 13);
    const q = randomVectors(1, DIM, 14)[0]!;
    const before = searchPool().replaced;
    searchPool().onDispatch = (thread) => {
      searchPool().onDispatch = null;
      void thread.terminate();
    };
    let failure: unknown = null;
    await searchCollectionPooled(c, query(q)).catch((err: unknown) => (failure = err));
    expect(failure).to.be.instanceOf(SearchWorkerError);
    expect(searchPool().replaced).to.equal(before + 1);
    const again = await searchCollectionPooled(c, query(q));
    expect(again).to.deep.equal(searchCollection(c, query(q)));
  });
});
