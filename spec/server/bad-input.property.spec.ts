import { expect } from 'chai';
import fc from 'fast-check';
import { call, useTestServer } from '../helpers/http.js';

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

/** Valid bodies per endpoint; the properties mutate them at random places. */
const TEMPLATES: { method: string; path: string; body: Json }[] = [
  { method: 'PUT', path: '/collections/p/points', body: { points: [{ id: 7, vector: [1, 2, 3], payload: { a: 1, tags: ['x'] }, labels: ['L'] }] } },
  { method: 'PUT', path: '/collections/p/points', body: { batch: { ids: [8, 9], vectors: [[1, 1, 1], [2, 2, 2]], payloads: [{ a: 2 }, null] } } },
  { method: 'POST', path: '/collections/p/points', body: { ids: [1, 2], with_payload: ['a'], with_vector: true } },
  { method: 'POST', path: '/collections/p/points/delete', body: { points: [5] } },
  { method: 'POST', path: '/collections/p/points/delete', body: { filter: { must: [{ key: 'a', match: { value: 99 } }] } } },
  { method: 'POST', path: '/collections/p/points/query', body: { query: [1, 0, 0], limit: 3, ef: 20, filter: { must: [{ key: 'a', range: { gte: 1 } }], must_not: [{ has_id: [3] }] }, score_threshold: -5 } },
  { method: 'POST', path: '/collections/p/points/search', body: { vector: [0, 1, 0], limit: 2, params: { hnsw_ef: 10 }, filter: { should: [{ key: 'tags', match: { any: ['x', 'y'] } }] } } },
  { method: 'POST', path: '/collections/p/points/search/batch', body: { searches: [{ vector: [1, 0, 0], limit: 2 }, { vector: [0, 0, 1], with_payload: false }] } },
  { method: 'POST', path: '/collections/p/points/scroll', body: { limit: 2, offset: 1, filter: { must: [{ is_empty: { key: 'zzz' } }] }, with_vector: true } },
  { method: 'POST', path: '/collections/p/points/count', body: { filter: { must: [{ key: 'a', match: { except: [5] } }] } } },
  { method: 'PUT', path: '/collections/q', body: { vectors: { size: 3, distance: 'Euclid' }, hnsw_config: { m: 8, ef_construct: 16, m0: 16 } } },
];

function paths(value: Json, prefix: (string | number)[] = []): (string | number)[][] {
  const out: (string | number)[][] = [prefix];
  if (Array.isArray(value)) value.forEach((v, i) => out.push(...paths(v, [...prefix, i])));
  else if (value !== null && typeof value === 'object') for (const [k, v] of Object.entries(value)) out.push(...paths(v, [...prefix, k]));
  return out;
}

/** A copy of `value` with the node at `path` replaced, removed, or wrapped in an array. */
function mutate(value: Json, path: (string | number)[], op: 'replace' | 'delete' | 'wrap', replacement: Json): Json {
  if (path.length === 0) return op === 'wrap' ? [value] : op === 'delete' ? {} : replacement;
  const copy = structuredClone(value) as { [k: string]: Json } & Json[];
  let node: Json = copy;
  for (const step of path.slice(0, -1)) node = (node as { [k: string]: Json })[step as string]!;
  const last = path[path.length - 1]!;
  const parent = node as { [k: string]: Json } & Json[];
  if (op === 'delete') {
    if (Array.isArray(parent)) parent.splice(last as number, 1);
    else delete parent[last as string];
  } else parent[last as string] = op === 'wrap' ? [parent[last as string]!] : replacement;
  return copy;
}

const tricky = fc.oneof(
  fc.jsonValue() as fc.Arbitrary<Json>,
  fc.constantFrom<Json>(-1, 2 ** 53, 1e39, -0, 0.5, '', '1', [], {}, null, true, [null], [1e308, -1e308], 'Cosine', { must: [] }),
);

describe('server: random and mutated bad input (property-based)', function () {
  this.timeout(180_000);
  const s = useTestServer();
  const seen = new Map<number, number>();

  /** Everything observable: collections with their config, and every point with payload, labels and vector. */
  async function snapshot(): Promise<string> {
    const list = await call(s.url, 'GET', '/collections');
    const parts: unknown[] = [];
    for (const { name } of list.body.result.collections as { name: string }[]) {
      const info = await call(s.url, 'GET', `/collections/${name}`);
      const points = await call(s.url, 'POST', `/collections/${name}/points/scroll`, { limit: 10_000, with_vector: true });
      parts.push(name, info.body.result.config, points.body.result.points);
    }
    return JSON.stringify(parts);
  }

  async function check(method: string, path: string, body: unknown): Promise<void> {
    const before = await snapshot();
    const res = await call(s.url, method, path, body);
    seen.set(res.status, (seen.get(res.status) ?? 0) + 1);
    expect(res.status, `${method} ${path} ${JSON.stringify(body)?.slice(0, 300)} -> ${JSON.stringify(res.body)}`).to.be.below(500);
    if (res.status >= 400) {
      expect(res.body.status).to.equal('error');
      expect(res.body.code).to.equal(res.status);
      expect(res.body.message).to.be.a('string').that.is.not.empty;
      expect(await snapshot(), `a ${res.status} changed the state: ${method} ${path} ${JSON.stringify(body)?.slice(0, 300)}`).to.equal(before);
    }
  }

  before(async () => {
    await call(s.url, 'PUT', '/collections/p', { vectors: { size: 3, distance: 'Cosine' } });
    await call(s.url, 'PUT', '/collections/p/points', {
      points: [1, 2, 3, 4, 5].map((id) => ({ id, vector: [id, 1, 0], payload: { a: id, tags: id % 2 ? ['x'] : [] } })),
    });
  });

  it('never answers 5xx to a mutated valid body, and a 4xx changes nothing', async () => {
    const cases = fc.record({
      template: fc.nat({ max: TEMPLATES.length - 1 }),
      at: fc.nat(),
      op: fc.constantFrom('replace' as const, 'delete' as const, 'wrap' as const),
      replacement: tricky,
    });
    await fc.assert(
      fc.asyncProperty(cases, async ({ template, at, op, replacement }) => {
        const t = TEMPLATES[template]!;
        const all = paths(t.body);
        await check(t.method, t.path, mutate(t.body, all[at % all.length]!, op, replacement));
      }),
      { numRuns: 250, seed: 20261122 },
    );
    const statuses = [...seen.keys()];
    expect(statuses.some((st) => st >= 200 && st < 300), 'some mutations stay valid').to.equal(true);
    expect(statuses.filter((st) => st >= 400).length, `4xx kinds seen: ${statuses}`).to.be.at.least(2);
  });

  it('never answers 5xx to random JSON or random text on any endpoint', async () => {
    const endpoints = [...new Set(TEMPLATES.map((t) => `${t.method} ${t.path}`))].map((e) => e.split(' ') as [string, string]);
    await fc.assert(
      fc.asyncProperty(fc.nat({ max: endpoints.length - 1 }), fc.oneof(fc.jsonValue(), fc.string().map((text) => ({ text }))), async (i, body) => {
        const [method, path] = endpoints[i]!;
        const raw = typeof body === 'object' && body !== null && 'text' in body && Object.keys(body).length === 1 ? (body as { text: string }).text : JSON.stringify(body);
        await check(method, path, raw === undefined ? undefined : raw);
      }),
      { numRuns: 150, seed: 7 },
    );
  });

  it('never answers 5xx to random and mutated import files, and a refused import changes nothing', async () => {
    const valid = new Uint8Array(await (await fetch(`${s.url}/collections/p/export`)).arrayBuffer());
    const upload = async (name: string, mode: string, bytes: Uint8Array): Promise<void> => {
      const before = await snapshot();
      const res = await fetch(`${s.url}/collections/${name}/import?mode=${mode}`, { method: 'POST', headers: { 'Content-Type': 'application/octet-stream' }, body: Buffer.from(bytes) });
      const body = (await res.json()) as { status: string; code?: number };
      seen.set(res.status, (seen.get(res.status) ?? 0) + 1);
      expect(res.status, `import ${mode} of ${bytes.length} bytes -> ${JSON.stringify(body)}`).to.be.below(500);
      if (res.status >= 400) {
        expect(body.code).to.equal(res.status);
        expect(await snapshot()).to.equal(before);
      }
    };
    const mutation = fc.record({
      flips: fc.array(fc.record({ at: fc.nat(), xor: fc.integer({ min: 1, max: 255 }) }), { maxLength: 4 }),
      cut: fc.option(fc.nat(), { nil: undefined }),
      mode: fc.constantFrom('create', 'replace', 'merge'),
      target: fc.constantFrom('p', 'imported'),
    });
    await fc.assert(
      fc.asyncProperty(mutation, async ({ flips, cut, mode, target }) => {
        const bytes = Uint8Array.from(valid);
        for (const { at, xor } of flips) bytes[at % bytes.length]! ^= xor;
        await upload(target, mode, cut === undefined ? bytes : bytes.subarray(0, cut % bytes.length));
      }),
      { numRuns: 80, seed: 11 },
    );
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ maxLength: 300 }), async (bytes) => upload('p', 'merge', bytes)),
      { numRuns: 40, seed: 12 },
    );
  });

  it('never answers 5xx to odd collection names, ids in paths and query strings', async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ maxLength: 300 }), fc.string({ maxLength: 50 }), async (name, query) => {
        const path = `/collections/${encodeURIComponent(name)}`;
        await check('PUT', `${path}?${encodeURIComponent(query)}`, { vectors: { size: 2, distance: 'Dot' } });
        await check('GET', `${path}/exists`, undefined);
        await check('POST', `${path}/points/count?${encodeURIComponent(query)}`, {});
      }),
      { numRuns: 60, seed: 3 },
    );
    expect((await call(s.url, 'GET', '/health')).status).to.equal(200);
  });
});
