import { expect } from 'chai';
import { ImportReader } from '../../storage/export/import-reader.js';
import { call, useTestServer } from '../helpers/http.js';
import { scrape } from '../helpers/prometheus.js';
import { randomVectors } from '../helpers/vectors.js';

const DIM = 64;
/** About 12 MB of export: more than the stream reads ahead and the socket holds, so it is still being encoded while the writes below apply. */
const POINTS = 40_000;

async function readAll(body: ReadableStream<Uint8Array>, first: Uint8Array[]): Promise<Uint8Array> {
  const reader = body.getReader();
  const chunks = [...first];
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

function parse(bytes: Uint8Array) {
  const r = new ImportReader();
  r.feed(bytes);
  return r.finish();
}

/** Points and edges as comparable values (vectors as plain arrays). */
const content = (file: ReturnType<typeof parse>) => ({
  points: file.points.map((p) => ({ ...p, vector: p.vector ? Array.from(p.vector) : null })),
  edges: file.edges,
});

/** The export encoded on the request thread (no replica yet: the server's first export), or on a Cypher replica (loaded first). */
for (const where of ['the request thread', 'a Cypher replica'] as const) {
  describe(`server: an export while writes go on, encoded on ${where}`, () => {
    const s = useTestServer(where === 'the request thread' ? { SERVICE_CYPHER_WORKERS: '0' } : { SERVICE_CYPHER_WORKERS: '1' });

    it('streams the collection exactly as it was at the operation_id in its header, whatever is applied meanwhile', async function () {
      this.timeout(180_000);
      await call(s.url, 'PUT', '/collections/big', { vectors: { size: DIM, distance: 'Euclid' } });
      const vectors = randomVectors(POINTS, DIM, 5);
      for (let from = 0; from < POINTS; from += 2000) {
        const points = vectors.slice(from, from + 2000).map((v, k) => ({ id: from + k, vector: Array.from(v), payload: { n: from + k, s: `point ${from + k}` }, labels: ['P'] }));
        expect((await call(s.url, 'PUT', '/collections/big/points?wait=true', { points })).status).to.equal(200);
      }
      await call(s.url, 'POST', '/collections/big/graph/edges', { from_id: 1, to_id: 2, relation: 'NEXT', weight: 0.5 });

      if (where === 'a Cypher replica') await s.service.cypher.ready();
      const res = await fetch(`${s.url}/collections/big/export`);
      expect(res.status).to.equal(200);
      expect(s.service.cypher.exported, `encoded on ${where}`).to.equal(where === 'a Cypher replica' ? 1 : 0);
      const reader = res.body!.getReader();
      const first = await reader.read();
      reader.releaseLock();
      // Applied while the export is being encoded and sent: deletes, edges, new vectors for old points, new points, payloads set in place.
      const fresh = randomVectors(50, DIM, 6);
      const writes = [
        (i: number) => call(s.url, 'POST', '/collections/big/points/delete?wait=true', { points: [POINTS - 1 - i] }),
        (i: number) => call(s.url, 'POST', '/collections/big/graph/edges', { from_id: i, to_id: i + 1, relation: 'LATER' }),
        (i: number) => call(s.url, 'PUT', '/collections/big/points?wait=true', { points: [{ id: i * 700, vector: Array.from(fresh[i]!), payload: { moved: i }, labels: [] }] }),
        (i: number) => call(s.url, 'PUT', '/collections/big/points?wait=true', { points: [{ id: POINTS + i, vector: Array.from(fresh[i]!), payload: { added: i }, labels: [] }] }),
        (i: number) => call(s.url, 'POST', '/collections/big/points/payload?wait=true', { payload: { set: i }, points: [i * 800 + 1] }),
      ];
      for (let i = 0; i < 50; i++) expect((await writes[i % writes.length]!(i)).status).to.equal(200);
      const exported = parse(await readAll(res.body!, [first.value!]));
      expect(exported.points.length).to.equal(POINTS);
      expect(res.headers.get('x-service-log-head'), 'the header names the head hash the file holds').to.equal(exported.logHead).and.to.match(/^[0-9a-f]{64}$/);

      const then = await fetch(`${s.url}/collections/big/export?at=${exported.exportedAt}`);
      expect(then.status).to.equal(200);
      const rebuilt = parse(new Uint8Array(await then.arrayBuffer()));
      expect(content(exported)).to.deep.equal(content(rebuilt));

      const now = parse(new Uint8Array(await (await fetch(`${s.url}/collections/big/export`)).arrayBuffer()));
      expect(now.points.length, 'the writes were applied').to.equal(POINTS);
      expect(content(now)).to.not.deep.equal(content(exported));
    });

    it('stops encoding once the client goes away, and the next export is whole', async function () {
      this.timeout(60_000);
      const aborted = new AbortController();
      const res = await fetch(`${s.url}/collections/big/export`, { signal: aborted.signal });
      await res.body!.getReader().read();
      aborted.abort();
      for (let tries = 0; tries < 100 && s.service.cypher.exportsOpen > 0; tries++) await new Promise((r) => setTimeout(r, 50));
      expect(s.service.cypher.exportsOpen, 'no export left open on a replica').to.equal(0);
      const whole = parse(new Uint8Array(await (await fetch(`${s.url}/collections/big/export`)).arrayBuffer()));
      expect(whole.points.length).to.equal(POINTS);
      expect(s.service.cypher.exported, `encoded on ${where}`).to.equal(where === 'a Cypher replica' ? 4 : 0);
      const metrics = await scrape(s.url);
      expect([metrics.value('vgdb_cypher_worker_exports_total'), metrics.value('vgdb_cypher_worker_exports_open')]).to.deep.equal([where === 'a Cypher replica' ? 4 : 0, 0]);
    });
  });
}
