import { expect } from 'chai';
import { call, useTestServer, type SuiteServer } from '../helpers/http.js';

async function download(s: SuiteServer, name: string): Promise<{ status: number; headers: Headers; bytes: Uint8Array }> {
  const res = await fetch(`${s.url}/collections/${name}/export`);
  return { status: res.status, headers: res.headers, bytes: new Uint8Array(await res.arrayBuffer()) };
}

async function upload(s: SuiteServer, name: string, mode: string, bytes: Uint8Array): Promise<{ status: number; body: any }> {
  const res = await fetch(`${s.url}/collections/${name}/import?mode=${mode}`, { method: 'POST', headers: { 'Content-Type': 'application/octet-stream' }, body: Buffer.from(bytes) });
  return { status: res.status, body: await res.json() };
}

describe('server: export and import', () => {
  const s = useTestServer({}, 'each');
  const state = async (name: string) => {
    const info = await call(s.url, 'GET', `/collections/${name}`);
    const points = await call(s.url, 'POST', `/collections/${name}/points/scroll`, { limit: 10_000, with_vector: true });
    const edges = await call(s.url, 'POST', `/collections/${name}/graph/traverse`, { start_id: 1, max_depth: 100 });
    return { status: info.status, config: info.body.result?.config, points: points.body.result?.points, edges: edges.body.result };
  };

  beforeEach(async () => {
    await call(s.url, 'PUT', '/collections/src', { vectors: { size: 2, distance: 'Euclid' }, hnsw_config: { m: 8, ef_construct: 40 } });
    await call(s.url, 'PUT', '/collections/src/points', { points: [1, 2, 3].map((id) => ({ id, vector: [id, id], payload: { n: id }, labels: ['P'] })) });
    await call(s.url, 'POST', '/collections/src/graph/edges', { from_id: 1, to_id: 2, relation: 'NEXT', weight: 0.5 });
    await call(s.url, 'POST', '/collections/src/graph/edges', { from_id: 2, to_id: 3, relation: 'NEXT' });
  });

  it('exports with the spec headers and imports into a new collection with identical content', async () => {
    const file = await download(s, 'src');
    expect(file.status).to.equal(200);
    expect(file.headers.get('content-type')).to.equal('application/octet-stream');
    expect(file.headers.get('x-service-format-version')).to.equal('7');
    expect(file.headers.get('x-service-point-count')).to.equal('3');
    expect(file.headers.get('x-service-dimension')).to.equal('2');
    expect(file.headers.get('content-disposition')).to.equal('attachment; filename="src.vgdb"');

    const created = await upload(s, 'copy', 'create', file.bytes);
    expect(created.status).to.equal(200);
    const imported = created.body.result.operation_id as number;
    expect(created.body.result).to.deep.equal({ points_imported: 3, points_skipped: 0, dimension: 2, mode: 'create', operation_id: imported });
    const [a, b] = [await state('src'), await state('copy')];
    expect(b).to.deep.equal(a);
    const again = await download(s, 'copy');
    expect(again.bytes.length, 'the same file but for the one-letter-longer name').to.equal(file.bytes.length + 1);
    // The import's operation_id is the log's: the next write is the one after it.
    const next = await call(s.url, 'PUT', '/collections/copy/points', { points: [{ id: 9, vector: [1, 1] }] });
    expect(next.body.result.operation_id).to.equal(imported + 1);
  });

  it('answers 409 for create over an existing collection, 404 for merge into a missing one, and 400 for a bad mode', async () => {
    const file = (await download(s, 'src')).bytes;
    expect((await upload(s, 'src', 'create', file)).status).to.equal(409);
    const merge = await upload(s, 'ghost', 'merge', file);
    expect(merge.status).to.equal(404);
    expect(merge.body).to.include({ status: 'error', code: 404 });
    for (const mode of ['', 'append', 'CREATE']) {
      const res = await upload(s, 'x', mode, file);
      expect(res.status, mode).to.equal(400);
      expect(res.body.message).to.match(/mode must be one of create, replace, merge/);
    }
    expect((await call(s.url, 'GET', '/collections/ghost')).status).to.equal(404);
    expect((await call(s.url, 'GET', '/collections/x')).status).to.equal(404);
  });

  it('replaces a collection (or creates it), and merges skipping duplicates', async () => {
    const file = (await download(s, 'src')).bytes;
    await call(s.url, 'PUT', '/collections/dst', { vectors: { size: 2, distance: 'Dot' } });
    await call(s.url, 'PUT', '/collections/dst/points', { points: [{ id: 3, vector: [9, 9], payload: { mine: true } }, { id: 4, vector: [4, 4] }] });
    const merged = await upload(s, 'dst', 'merge', file);
    expect(merged.body.result).to.deep.equal({ points_imported: 2, points_skipped: 1, dimension: 2, mode: 'merge', operation_id: merged.body.result.operation_id });
    const dst = await call(s.url, 'POST', '/collections/dst/points', { ids: [1, 3, 4], with_vector: true });
    expect(dst.body.result.map((p: { id: number; payload: unknown }) => [p.id, p.payload])).to.deep.equal([[1, { n: 1 }], [3, { mine: true }], [4, {}]]);
    expect((await call(s.url, 'GET', '/collections/dst')).body.result.config.vectors.distance).to.equal('Dot');

    const replaced = await upload(s, 'dst', 'replace', file);
    expect(replaced.body.result).to.deep.equal({ points_imported: 3, points_skipped: 0, dimension: 2, mode: 'replace', operation_id: merged.body.result.operation_id + 1 });
    expect(await state('dst')).to.deep.equal(await state('src'));
    const fresh = await upload(s, 'brand-new', 'replace', file);
    expect(fresh.status).to.equal(200);
  });

  it('rejects a dimension mismatch in merge and every corruption with 400, leaving the target exactly as it was', async () => {
    const file = (await download(s, 'src')).bytes;
    await call(s.url, 'PUT', '/collections/three', { vectors: { size: 3, distance: 'Euclid' } });
    await call(s.url, 'PUT', '/collections/three/points', { points: [{ id: 1, vector: [1, 2, 3] }] });
    const before = await state('three');
    const mismatch = await upload(s, 'three', 'merge', file);
    expect(mismatch.status).to.equal(400);
    expect(mismatch.body.message).to.match(/dimension mismatch/);

    const version = Uint8Array.from(file);
    version[4] = 8;
    const flipped = Uint8Array.from(file);
    flipped[file.length - 20]! ^= 1;
    const cases: [Uint8Array, RegExp][] = [
      [version, /unsupported export format version 8/],
      [flipped, /corrupted import file/],
      [file.subarray(0, file.length - 5), /truncated/],
      [Uint8Array.from([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]), /magic/],
      [new Uint8Array(0), /truncated/],
    ];
    for (const mode of ['replace', 'merge']) {
      for (const [bytes, message] of cases) {
        const res = await upload(s, 'three', mode, bytes);
        expect(res.status, `${mode} ${message}`).to.equal(400);
        // A merge is checked against its target as soon as the header is in, before damage later in the file is reached.
        const pastHeader = bytes === flipped || bytes.length === file.length - 5;
        expect(res.body.message).to.match(mode === 'merge' && pastHeader ? /dimension mismatch/ : message);
      }
    }
    expect(await state('three')).to.deep.equal(before);
  });

  it('answers 413 for a body above 1 GiB from its Content-Length, without reading it', async () => {
    const { request } = await import('node:http');
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(`${s.url}/collections/big/import?mode=create`, { method: 'POST', headers: { 'Content-Type': 'application/octet-stream', 'Content-Length': String(2 ** 30 + 1) } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.write(Buffer.alloc(1024));
    });
    expect(status).to.equal(413);
    expect((await call(s.url, 'GET', '/collections/big')).status).to.equal(404);
  });

  it('keeps an imported collection across a restart', async () => {
    const file = (await download(s, 'src')).bytes;
    await upload(s, 'copy', 'create', file);
    const before = await state('copy');
    await s.restart();
    expect(await state('copy')).to.deep.equal(before);
  });
});
