/**
 * One script that exercises every operation of the browser library and records what each
 * answers (errors as {code, message}). It runs in Node against the compiled library and, as
 * its source text, inside Chromium against the bundle, so it must stay self-contained: no
 * imports, no closures, only its argument and the platform's globals.
 */
export async function exerciseLibrary(lib?: unknown): Promise<Record<string, unknown>> {
  const DB: any = lib ?? (globalThis as any).VectorGraphDB;
  const out: Record<string, unknown> = {};
  const attempt = (name: string, f: () => unknown) => {
    try {
      out[name] = f();
    } catch (err) {
      out[name] = { code: (err as { code?: number }).code, message: (err as Error).message, isError: err instanceof Error };
    }
  };
  let seed = 12345;
  const rnd = () => (seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0) / 2 ** 32;
  const vector = () => Float32Array.from({ length: 8 }, () => rnd() * 2 - 1);

  const db = await DB.init();
  attempt('create', () => db.createCollection('docs', { vectors: { size: 8, distance: 'Cosine' }, hnsw_config: { m: 8, ef_construct: 64 } }));
  attempt('createAgain', () => db.createCollection('docs', { vectors: { size: 8, distance: 'Cosine' } }));
  attempt('createBad', () => db.createCollection('bad/name', { vectors: { size: 8, distance: 'Cosine' } }));
  attempt('createBadDistance', () => db.createCollection('x', { vectors: { size: 8, distance: 'Hamming' } }));
  const points = Array.from({ length: 300 }, (_, i) => ({ id: i, vector: vector(), payload: { n: i, group: i % 3 === 0 ? 'a' : 'b' }, labels: i % 2 ? ['Odd'] : ['Even'] }));
  attempt('upsert', () => db.upsert('docs', points));
  attempt('upsertBigintId', () => db.upsert('docs', [{ id: 1000n, vector: vector(), payload: { big: true } }]));
  attempt('upsertWrongDim', () => db.upsert('docs', [{ id: 1, vector: Float32Array.of(1, 2), payload: {} }]));
  attempt('upsertMissing', () => db.upsert('nope', points.slice(0, 1)));
  attempt('list', () => db.listCollections());
  attempt('info', () => db.getCollection('docs').points_count);
  attempt('infoMissing', () => db.getCollection('nope'));
  const q = vector();
  attempt('search', () => db.search('docs', q, 5));
  attempt('searchOptions', () => db.search('docs', q, 3, { with_payload: false, with_vector: true, filter: { must: [{ key: 'group', match: { value: 'a' } }] } }));
  attempt('searchThreshold', () => db.search('docs', q, 50, { score_threshold: 0.5 }).every((p: { score: number }) => p.score >= 0.5));
  attempt('searchBadLimit', () => db.search('docs', q, 0));
  attempt('getPoints', () => db.getPoints('docs', BigUint64Array.of(3n, 999n, 1000n, 4n), true, false));
  attempt('getPointsVector', () => db.getPoints('docs', BigUint64Array.of(5n), false, true));
  attempt('getPointsTooBig', () => db.getPoints('docs', BigUint64Array.of(2n ** 60n)));
  attempt('addEdge', () => [db.addEdge('docs', 1, 2, 'KNOWS', 0.5), db.addEdge('docs', 2, 3, 'KNOWS', 1), db.addEdge('docs', 2, 4, 'LIKES'), db.addEdge('docs', 1, 2, 'KNOWS', 0.75)]);
  attempt('addEdgeMissing', () => db.addEdge('docs', 1, 77777, 'KNOWS', 1));
  attempt('addEdgeNoRelation', () => db.addEdge('docs', 1, 2, '', 1));
  attempt('traverse', () => db.traverse('docs', 1, 2, null));
  attempt('traverseRelations', () => db.traverse('docs', 1, 5, ['KNOWS']));
  attempt('traverseTooDeep', () => db.traverse('docs', 1, 101, null));
  const strip = (r: { stats: Record<string, unknown> }) => ({ ...r, stats: { ...r.stats, execution_time_ms: typeof r.stats.execution_time_ms } });
  attempt('query', () => strip(db.query('docs', 'MATCH (a)-[k:KNOWS]->(b) RETURN id(a), k.weight, b.n ORDER BY id(a)')));
  attempt('queryWrite', () => strip(db.query('docs', "MATCH (a:Even) WHERE a.n < $max CREATE (a)-[:TAG {t: 'x'}]->(:Tag {of: a.n}) RETURN count(*)", { max: 10 })));
  attempt('queryAfterWrite', () => db.query('docs', 'MATCH (t:Tag)<-[r:TAG]-(a) RETURN t.of, r.t, r.weight ORDER BY t.of LIMIT 3').rows);
  attempt('queryVector', () => db.query('docs', 'MATCH (n) WHERE n.embedding <-> $q < 0.2 RETURN count(*)', { q: Array.from(q) }).rows);
  attempt('querySyntax', () => db.query('docs', 'MATCH (n\nRETURN n'));
  attempt('queryUnsupported', () => db.query('docs', 'LOAD CSV FROM "file:///x.csv" AS row RETURN row'));
  attempt('deletePoints', () => db.deletePoints('docs', BigUint64Array.of(2n, 3n)));
  attempt('afterDelete', () => [db.getCollection('docs').points_count, db.traverse('docs', 1, 3, null)]);
  const file = db.exportCollection('docs');
  attempt('exportSize', () => [file instanceof Uint8Array, file.length > 1000, Array.from(file.subarray(0, 4))]);
  attempt('importCopy', () => db.importCollection('copy', file));
  attempt('importAgain', () => db.importCollection('copy', file, 'create'));
  attempt('importCorrupt', () => db.importCollection('broken', file.subarray(0, file.length - 5)));
  attempt('copySearchEqual', () => JSON.stringify(db.search('copy', q, 10)) === JSON.stringify(db.search('docs', q, 10)));
  const edges = 'MATCH (a)-[r]->(b) RETURN a, type(r), properties(r), b ORDER BY id(a), id(b)';
  attempt('copyQueryEqual', () => JSON.stringify(db.query('copy', edges).rows) === JSON.stringify(db.query('docs', edges).rows));
  attempt('deleteCollection', () => [db.deleteCollection('copy'), db.listCollections()]);
  attempt('deleteMissing', () => db.deleteCollection('copy'));
  return out;
}
