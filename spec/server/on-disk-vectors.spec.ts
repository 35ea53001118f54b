import { readdirSync, readlinkSync } from 'node:fs';
import { expect } from 'chai';
import { call, startTestServer, type TestServer } from '../helpers/http.js';
import { tempDir } from '../helpers/temp-dir.js';
import { randomVectors } from '../helpers/vectors.js';

const DIM = 24;
const COUNT = 1_200;
const vectors = randomVectors(COUNT, DIM, 5);
const queries = randomVectors(12, DIM, 77).map((q) => Array.from(q));

/** The float files this process holds open for a data dir (unlinked at once: "(deleted)"). */
function floatFilesOpen(dataDir: string): number {
  let n = 0;
  for (const fd of readdirSync('/proc/self/fd')) {
    try {
      if (readlinkSync(`/proc/self/fd/${fd}`).startsWith(`${dataDir}/floats/`)) n++;
    } catch {
      // The descriptor closed while the directory was read.
    }
  }
  return n;
}

/** A request in Qdrant's dialect (whose collection info names vectors), answered as status and body. */
async function qdrant(s: TestServer, method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(s.service.qdrantUrl! + path, { method, headers: { 'Content-Type': 'application/json' }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  return { status: res.status, body: await res.json() };
}

/** The result of a request that must succeed (`inQdrant`: in Qdrant's dialect). */
async function ok(s: TestServer, method: string, path: string, body?: unknown, inQdrant = false): Promise<any> {
  const r = inQdrant ? await qdrant(s, method, path, body) : await call(s.url, method, path, body);
  expect(r.status, JSON.stringify(r.body)).to.equal(200);
  return r.body.result;
}

/** `vgdb_float_files_disk_bytes` from /metrics: the disk the unlinked float files take. */
async function floatFileBytes(s: TestServer): Promise<number> {
  const text = (await call(s.url, 'GET', '/metrics')).body as string;
  return Number(/^vgdb_float_files_disk_bytes (\d+)$/m.exec(text)?.[1] ?? NaN);
}

async function green(s: TestServer, name: string): Promise<void> {
  while ((await ok(s, 'GET', `/collections/${name}`, undefined, true)).status !== 'green') await new Promise((r) => setTimeout(r, 20));
}

/** Ids and scores of each query's top 10 (int8 walk rescored with the floats, unless `params` says otherwise). */
async function hits(s: TestServer, name: string, params: Record<string, unknown> = {}): Promise<unknown[]> {
  const out: unknown[] = [];
  for (const query of queries) out.push((await ok(s, 'POST', `/collections/${name}/points/query`, { query, limit: 10, params })).map((h: { id: number; score: number }) => [h.id, h.score]));
  return out;
}

/** The brute-force top 10 by squared Euclidean distance over `points`. */
function exactTop(points: Map<number, Float32Array>, query: number[]): number[] {
  const d = (v: Float32Array) => v.reduce((sum, x, i) => sum + (x - query[i]!) ** 2, 0);
  return [...points].sort((a, b) => d(a[1]) - d(b[1]) || a[0] - b[0]).slice(0, 10).map(([id]) => id);
}

describe('server: float vectors on disk (on_disk: true)', function () {
  this.timeout(120_000);
  let dir: ReturnType<typeof tempDir>;
  let s: TestServer;
  beforeEach(() => (dir = tempDir()));
  afterEach(async () => {
    await s?.stop();
    dir.remove();
  });

  it('answers the same hits as in RAM once PATCHed to disk, after a restart from the log and from a snapshot, and back in RAM', async () => {
    s = await startTestServer({}, dir.path);
    await ok(s, 'PUT', '/collections/k', { vectors: { size: DIM, distance: 'Euclid' }, quantization_config: { scalar: { type: 'int8' } } });
    await ok(s, 'PUT', '/collections/k/points', { points: vectors.map((v, id) => ({ id, vector: Array.from(v) })) });
    await green(s, 'k');
    const inRam = await hits(s, 'k');
    expect(floatFilesOpen(dir.path)).to.equal(0);

    await ok(s, 'PATCH', '/collections/k', { vectors: { '': { on_disk: true } } });
    expect(floatFilesOpen(dir.path), 'the floats moved into a file').to.equal(1);
    expect(await floatFileBytes(s), 'the metric counts the file du cannot see').to.be.at.least(COUNT * DIM * 4);
    expect((await ok(s, 'GET', '/collections/k')).config.params.vectors).to.deep.equal({ size: DIM, distance: 'Euclid', on_disk: true });
    expect(await hits(s, 'k'), 'rescored with the same floats, read from the file').to.deep.equal(inRam);
    const got = await ok(s, 'POST', '/collections/k/points', { ids: [0, 777], with_vector: true });
    expect(got.map((p: { vector: number[] }) => p.vector)).to.deep.equal([Array.from(vectors[0]!), Array.from(vectors[777]!)]);
    const cypher = await ok(s, 'POST', '/collections/k/graph/query', { query: 'MATCH (n) WHERE id(n) IN [3, 777] RETURN id(n), n.embedding ORDER BY id(n)' });
    expect(cypher.rows, 'Cypher reads the floats from the file too').to.deep.equal([[3, Array.from(vectors[3]!)], [777, Array.from(vectors[777]!)]]);

    await s.stop();
    s = await startTestServer({ SERVICE_SNAPSHOT_EVERY: '0' }, dir.path);
    expect(floatFilesOpen(dir.path), 'rebuilt at start-up').to.equal(1);
    expect(await hits(s, 'k'), 'after a restart').to.deep.equal(inRam);
    await s.stop();
    s = await startTestServer({ SERVICE_SNAPSHOT_EVERY: '0' }, dir.path);
    expect(readdirSync(`${dir.path}/snapshots`).some((f) => f.endsWith('.snap'))).to.equal(true);
    expect(floatFilesOpen(dir.path)).to.equal(1);
    expect(await hits(s, 'k'), 'after a restart from the snapshot').to.deep.equal(inRam);

    await ok(s, 'PATCH', '/collections/k', { vectors: { '': { on_disk: false } } });
    expect(floatFilesOpen(dir.path), 'back in RAM, the file closed').to.equal(0);
    expect(await floatFileBytes(s), 'no file, no bytes').to.equal(0);
    expect((await ok(s, 'GET', '/collections/k')).config.params.vectors).to.deep.equal({ size: DIM, distance: 'Euclid' });
    expect(await hits(s, 'k')).to.deep.equal(inRam);
  });

  it('keeps deletes, overwrites and new points of an on-disk vector exact, across a restart and an export and import', async () => {
    s = await startTestServer({}, dir.path);
    await ok(s, 'PUT', '/collections/k', { vectors: { size: DIM, distance: 'Euclid', on_disk: true }, quantization_config: { scalar: { type: 'int8' } } });
    expect(floatFilesOpen(dir.path)).to.equal(1);
    const expected = new Map<number, Float32Array>();
    await ok(s, 'PUT', '/collections/k/points', { points: vectors.slice(0, 800).map((v, id) => ({ id, vector: Array.from(v) })) });
    vectors.slice(0, 800).forEach((v, id) => expected.set(id, v));
    await green(s, 'k');
    const deleted = Array.from({ length: 200 }, (_, i) => i * 3);
    await ok(s, 'POST', '/collections/k/points/delete', { points: deleted });
    for (const id of deleted) expected.delete(id);
    // Overwrites of live points, and new points that may take the freed slots.
    const rewritten = vectors.slice(800).map((v, i) => ({ id: i < 200 ? 1 + i * 3 : 1000 + i, vector: Array.from(v) }));
    await ok(s, 'PUT', '/collections/k/points', { points: rewritten });
    for (const p of rewritten) expected.set(p.id, Float32Array.from(p.vector));
    await green(s, 'k');

    const check = async (name: string) => {
      const ids = [...expected.keys()];
      const got = await ok(s, 'POST', `/collections/${name}/points`, { ids, with_vector: true });
      expect(got).to.have.length(ids.length);
      for (const p of got as { id: number; vector: number[] }[]) expect(p.vector, `point ${p.id}`).to.deep.equal(Array.from(expected.get(p.id)!));
      for (const query of queries) {
        const exact = await ok(s, 'POST', `/collections/${name}/points/query`, { query, limit: 10, params: { exact: true } });
        expect(exact.map((h: { id: number }) => h.id)).to.deep.equal(exactTop(expected, query));
      }
    };
    await check('k');
    const before = await hits(s, 'k');
    await s.stop();
    s = await startTestServer({}, dir.path);
    await check('k');
    expect(await hits(s, 'k')).to.deep.equal(before);

    const file = Buffer.from(await (await fetch(`${s.url}/collections/k/export`)).arrayBuffer());
    const imported = await fetch(`${s.url}/collections/copy/import?mode=create`, { method: 'POST', body: file, headers: { 'Content-Type': 'application/octet-stream' } });
    expect(imported.status, await imported.clone().text()).to.equal(200);
    expect((await ok(s, 'GET', '/collections/copy')).config.params.vectors).to.deep.equal({ size: DIM, distance: 'Euclid', on_disk: true });
    expect(floatFilesOpen(dir.path), 'the imported collection keeps its floats on disk too').to.equal(2);
    await green(s, 'copy');
    await check('copy');
  });

  it('walks the floats in the file when on_disk has no quantization, and moves a named vector with PATCH', async () => {
    s = await startTestServer({}, dir.path);
    await ok(s, 'PUT', '/collections/n', { vectors: { a: { size: DIM, distance: 'Euclid', on_disk: true }, b: { size: DIM, distance: 'Euclid' } } }, true);
    expect(floatFilesOpen(dir.path)).to.equal(1);
    const expected = new Map(vectors.slice(0, 500).map((v, id) => [id, v] as const));
    await ok(s, 'PUT', '/collections/n/points?wait=true', { points: [...expected].map(([id, v]) => ({ id, vector: { a: Array.from(v), b: Array.from(v) } })) }, true);
    await green(s, 'n');
    for (const query of queries) {
      const a = await ok(s, 'POST', '/collections/n/points/query', { query, using: 'a', limit: 10, params: { hnsw_ef: 200 } }, true);
      const b = await ok(s, 'POST', '/collections/n/points/query', { query, using: 'b', limit: 10, params: { hnsw_ef: 200 } }, true);
      expect(a.points.map((h: { id: number }) => h.id)).to.deep.equal(exactTop(expected, query));
      expect(a).to.deep.equal(b);
    }
    await ok(s, 'PATCH', '/collections/n', { vectors: { a: { on_disk: false }, b: { on_disk: true } } }, true);
    const vectorsConfig = (await ok(s, 'GET', '/collections/n', undefined, true)).config.params.vectors;
    expect([vectorsConfig.a.on_disk, vectorsConfig.b.on_disk]).to.deep.equal([undefined, true]);
    expect(floatFilesOpen(dir.path)).to.equal(1);
    const got = await ok(s, 'POST', '/collections/n/points', { ids: [7], with_vector: true }, true);
    expect(got[0].vector).to.deep.equal({ a: Array.from(expected.get(7)!), b: Array.from(expected.get(7)!) });
  });

  it('refuses an on_disk PATCH that names no dense vector, or a field it cannot change, by name', async () => {
    s = await startTestServer({}, dir.path);
    await ok(s, 'PUT', '/collections/k', { vectors: { size: DIM, distance: 'Dot' } });
    const unknown = await qdrant(s, 'PATCH', '/collections/k', { vectors: { text: { on_disk: true } } });
    expect([unknown.status, unknown.body.status.error]).to.deep.equal([400, 'vectors.text: the collection has no dense vector named "text"']);
    const other = await call(s.url, 'PATCH', '/collections/k', { vectors: { '': { on_disk: true, size: 3 } } });
    expect(other.status).to.equal(400);
    expect(other.body.message).to.equal(`unknown field "vectors..size": the fields of vectors. are on_disk`);
  });
});
