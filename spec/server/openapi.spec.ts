import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type Router from '@koa/router';
import { Validator } from '@seriousme/openapi-schema-validator';
import { expect } from 'chai';
import { pino } from 'pino';
import { createApp } from '../../server/app.js';
import { readConfig } from '../../server/config.js';
import { createServiceMetrics } from '../../server/metrics/service-metrics.js';
import { Readiness } from '../../server/readiness.js';
import { Engine } from '../../storage/engine/engine.js';
import { MemoryLog } from '../../storage/log/memory-log.js';
import { call, useTestServer } from '../helpers/http.js';
import { bodyMatchesDocument, checkResponse } from '../helpers/response-contract.js';

type Json = Record<string, any>;

/** A good body for every operation that takes JSON, against the collection "c" (size 2) holding points 1 and 2. */
const SAMPLE_BODIES: Record<string, unknown> = {
  createCollection: { vectors: { size: 2, distance: 'Dot' }, hnsw_config: { m: 8, ef_construct: 16 } },
  upsertPoints: { points: [{ id: 3, vector: [0.5, 0.5], payload: { a: 1 }, labels: ['L'] }] },
  getPoints: { ids: [1, 2], with_payload: ['a'], with_vector: true },
  deletePoints: { points: [3] },
  scrollPoints: { limit: 1, offset: 0, filter: { must: [{ key: 'a', range: { gte: 0 } }] } },
  countPoints: { filter: { must_not: [{ has_id: [1] }] }, exact: true },
  queryPoints: { query: [1, 0], limit: 2, ef: 16, filter: { should: [{ key: 'a', match: { any: [1, 2] } }] }, score_threshold: -10 },
  searchPoints: { vector: [1, 0], limit: 1, params: { hnsw_ef: 16 } },
  searchBatch: { searches: [{ vector: [1, 0] }, { vector: [0, 1], with_payload: false }] },
  addEdge: { from_id: 1, to_id: 2, relation: 'KNOWS', weight: 0.5 },
  traverse: { start_id: 1, max_depth: 2, relations: null },
  graphQuery: { query: 'MATCH (n) WHERE id(n) = $id RETURN n', parameters: { id: 1 } },
  setPayload: { payload: { b: { c: 2 } }, points: [1], key: 'nested' },
  overwritePayload: { payload: { a: 1 }, points: [1] },
  deletePayload: { keys: ['b.c'], filter: { must: [{ has_id: [1] }] } },
  clearPayload: { filter: { must: [{ key: 'nothing', match: { value: 1 } }] } },
  updateVectors: { points: [{ id: 1, vector: { '': [1, 0] } }] },
  deleteVectors: { filter: { must: [{ key: 'nothing', match: { value: 1 } }] }, vector: [''] },
  batchUpdate: { operations: [{ set_payload: { payload: { c: 3 }, points: [1] } }, { delete_payload: { keys: ['c'], points: [1] } }] },
  queryBatch: { searches: [{ query: [1, 0], limit: 1 }, { query: { nearest: 1, mmr: { diversity: 0.5 } } }] },
  queryGroups: { query: [1, 0], group_by: 'a', group_size: 1, limit: 2 },
  createPayloadIndex: { field_name: 'a', field_schema: { type: 'integer', range: true } },
  recommendPoints: { positive: [1], negative: [[0, 1]], strategy: 'best_score', limit: 1 },
  recommendBatch: { searches: [{ positive: [1] }] },
  searchGroups: { vector: [1, 0], group_by: 'a', group_size: 1 },
  recommendGroups: { positive: [1], group_by: 'a', group_size: 1, lookup_from: null },
  discoverPoints: { target: [1, 0], context: [{ positive: 1, negative: [0, 1] }], limit: 1 },
  discoverBatch: { searches: [{ context: [{ positive: [1, 0], negative: 2 }] }] },
  searchMatrixPairs: { sample: 2, limit: 1 },
  searchMatrixOffsets: { filter: { must: [{ key: 'a', range: { gte: 0 } }] } },
  facet: { key: 'a', limit: 3 },
  updateCollection: { optimizers_config: { indexing_threshold: 10000 }, hnsw_config: { full_scan_threshold: 100 } },
  updateAliases: { actions: [{ create_alias: { collection_name: 'c', alias_name: 'current' } }, { rename_alias: { old_alias_name: 'current', new_alias_name: 'live' } }] },
};

const fill = (template: string): string => template.replace('{collection_name}', 'c').replace('{point_id}', '1');
const shape = (path: string): string => path.replace(/\{\w+\}|:\w+/g, '{}');

describe('server: GET /openapi.json', () => {
  const s = useTestServer({ SERVICE_API_KEYS: 'secret' });
  const auth = { Authorization: 'ApiKey secret' };
  let document: Json;

  before(async () => {
    const res = await call(s.url, 'GET', '/openapi.json');
    expect(res.status, 'public: no credential sent').to.equal(200);
    expect(res.headers.get('content-type')).to.match(/^application\/json/);
    document = res.body;
    await call(s.url, 'PUT', '/collections/c', { vectors: { size: 2, distance: 'Dot' } }, auth);
    await call(s.url, 'PUT', '/collections/c/points', { points: [{ id: 1, vector: [1, 0], payload: { a: 1 } }, { id: 2, vector: [0, 1], payload: { a: 2 } }] }, auth);
  });

  it('is a valid OpenAPI 3.1 document', async () => {
    expect(document.openapi).to.equal('3.1.0');
    const result = await new Validator().validate(document);
    expect(result.errors, JSON.stringify(result.errors)).to.equal(undefined);
    expect(result.valid).to.equal(true);
  });

  it('documents every route the Koa routers register, with its path parameters', () => {
    const engine = new Engine(new MemoryLog());
    const app = createApp({ engine, config: readConfig({}), logger: pino({ level: 'silent' }), readiness: new Readiness(engine), version: 'test', metrics: createServiceMetrics() });
    const registered = app.middleware
      .map((m) => (m as { router?: Router }).router)
      .filter((r): r is Router => r !== undefined)
      .flatMap((router) => router.stack.flatMap((layer) => layer.methods.filter((m) => m !== 'HEAD').map((m) => `${m} ${shape(layer.path as string)}`)));
    expect(registered.length, 'the routers were found').to.be.at.least(25);
    const documented = new Set(Object.entries(document.paths as Json).flatMap(([path, item]) => Object.keys(item).map((m) => `${m.toUpperCase()} ${shape(path)}`)));
    expect(registered.filter((route) => !documented.has(route)), 'registered but not documented').to.deep.equal([]);
    for (const [path, item] of Object.entries(document.paths as Json)) {
      const names = [...path.matchAll(/\{(\w+)\}/g)].map(([, name]) => name);
      for (const [method, op] of Object.entries(item as Json)) {
        const inPath = (op.parameters ?? []).filter((p: Json) => p.in === 'path').map((p: Json) => p.name);
        expect(inPath, `${method} ${path}`).to.deep.equal(names);
      }
    }
  });

  it('marks the public endpoints public and the others behind the three credential schemes', () => {
    expect(Object.keys(document.components.securitySchemes).sort()).to.deep.equal(['ApiKey', 'Bearer', 'QdrantApiKey']);
    expect(document.components.securitySchemes.QdrantApiKey).to.include({ type: 'apiKey', in: 'header', name: 'api-key' });
    const publicPaths = Object.entries(document.paths as Json).filter(([, item]) => (item as Json).get?.security?.length === 0).map(([path]) => path);
    expect(publicPaths.sort()).to.deep.equal(['/', '/health', '/healthz', '/openapi.json', '/ready', '/readyz']);
    expect(document.paths['/metrics'].get.responses['200'].content).to.have.property('text/plain; version=0.0.4');
  });

  it('describes each JSON request body with the schema the server checks it with', async () => {
    const withBody = Object.values(document.paths as Json).flatMap((item) => Object.values(item as Json)).filter((op: Json) => op.requestBody?.content['application/json']);
    expect(withBody.map((op: Json) => op.operationId).sort()).to.deep.equal([...Object.keys(SAMPLE_BODIES), 'recoverSnapshot'].sort());
    // Recovering needs a snapshot that exists: one is made of collection c, and its file named.
    const snapshotToRecover = async () => {
      const made = await call(s.url, 'POST', '/collections/c/snapshots', undefined, auth);
      return { location: pathToFileURL(join(s.dataDir, 'collection-snapshots', 'c', made.body.result.name)).href };
    };
    for (const [path, item] of Object.entries(document.paths as Json)) {
      for (const [method, op] of Object.entries(item as Json)) {
        const sample = op.operationId === 'recoverSnapshot' ? await snapshotToRecover() : SAMPLE_BODIES[op.operationId];
        if (sample === undefined) continue;
        const target = op.operationId === 'createCollection' ? '/collections/fresh' : fill(path);
        expect(bodyMatchesDocument(op, sample), `${op.operationId}: the sample fits the document`).to.equal(true);
        const surprise = await call(s.url, method.toUpperCase(), target, { ...(sample as Json), surprise: 1 }, auth);
        expect(surprise.status, `${op.operationId} with an unknown field`).to.equal(400);
        expect(surprise.body.message).to.match(/unknown field "surprise": the fields here are /);
        expect(bodyMatchesDocument(op, { ...(sample as Json), surprise: 1 }), `${op.operationId}: the document refuses it too`).to.equal(false);
        const res = await call(s.url, method.toUpperCase(), target, sample, auth);
        expect(res.status, `${op.operationId}: ${JSON.stringify(res.body)}`).to.equal(200);
      }
    }
  });

  it('fails a test whose response differs from the document, naming method, path, status and the difference', () => {
    expect(() => checkResponse('POST', '/collections/c/points/query', 200, { status: 'ok', result: [{ id: 1 }], time: 0 })).to.throw(
      /POST \/collections\/c\/points\/query 200 .*result\/0 must have required property 'score'/,
    );
    expect(() => checkResponse('GET', '/collections/c', 404, { status: 'error', message: 'x' })).to.throw(/GET \/collections\/c 404 .*must have required property 'code'/);
    expect(() => checkResponse('GET', '/nowhere', 200, { status: 'ok' })).to.throw(/no JSON response for GET \/nowhere 200/);
    expect(() => checkResponse('GET', '/nowhere', 404, { status: 'error', message: 'no endpoint GET /nowhere', code: 404 })).to.not.throw();
  });

  it('documents the binary import and export', async () => {
    const exp = document.paths['/collections/{collection_name}/export'].get;
    expect(exp.responses['200'].content).to.have.property('application/octet-stream');
    expect(exp.responses['200'].headers).to.have.keys('Content-Disposition', 'X-Service-Format-Version', 'X-Service-Point-Count', 'X-Service-Dimension', 'X-Service-Log-Head');
    const imp = document.paths['/collections/{collection_name}/import'].post;
    expect(imp.requestBody.content).to.have.property('application/octet-stream');
    expect(imp.parameters.find((p: Json) => p.name === 'mode')).to.deep.include({ in: 'query', required: true, schema: { type: 'string', enum: ['create', 'replace', 'merge'] } });
    expect(imp.responses).to.include.keys('400', '404', '409', '413');
  });
});
