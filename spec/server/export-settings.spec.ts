import { expect } from 'chai';
import { call, useTestServer } from '../helpers/http.js';

describe('server: export and import carry the collection settings', () => {
  const s = useTestServer({}, 'each');
  const cypher = async (name: string, query: string) => {
    const res = await call(s.url, 'POST', `/collections/${name}/graph/query`, { query });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    return JSON.stringify(res.body.result);
  };
  const settingsOf = async (name: string) => {
    const { config } = (await call(s.url, 'GET', `/collections/${name}`)).body.result;
    return { optimizer: { indexing_threshold: config.optimizer_config.indexing_threshold }, fullScan: config.hnsw_config.full_scan_threshold };
  };
  const upload = (name: string, mode: string, bytes: ArrayBuffer) =>
    fetch(`${s.url}/collections/${name}/import?mode=${mode}`, { method: 'POST', body: Buffer.from(bytes), headers: { 'content-type': 'application/octet-stream' } });

  let file: ArrayBuffer;
  beforeEach(async () => {
    await call(s.url, 'PUT', '/collections/src', { vectors: { size: 2, distance: 'Cosine' } });
    expect((await call(s.url, 'PATCH', '/collections/src', { optimizers_config: { indexing_threshold: 1234 }, hnsw_config: { full_scan_threshold: 77 } })).status).to.equal(200);
    await cypher('src', 'CREATE CONSTRAINT person_id FOR (p:Person) REQUIRE p.id IS UNIQUE');
    await cypher('src', 'CREATE INDEX person_name FOR (p:Person) ON (p.name)');
    file = await (await fetch(`${s.url}/collections/src/export`)).arrayBuffer();
  });

  it('create: Qdrant settings and the Cypher schema (indexes and constraints) come back, and survive a restart', async () => {
    expect((await upload('copy', 'create', file)).status).to.equal(200);
    await s.restart();
    expect(await settingsOf('copy')).to.deep.equal({ optimizer: { indexing_threshold: 1234 }, fullScan: 77 });
    expect(await cypher('copy', 'SHOW CONSTRAINTS YIELD name, type')).to.include('person_id').and.to.include('UNIQUENESS');
    expect(await cypher('copy', 'SHOW INDEXES YIELD name')).to.include('person_name');
  });

  it("merge: the target's own settings win, the file's fill in what it lacks; replace takes the file's", async () => {
    await call(s.url, 'PUT', '/collections/target', { vectors: { size: 2, distance: 'Cosine' } });
    await call(s.url, 'PATCH', '/collections/target', { optimizers_config: { indexing_threshold: 10 } });
    expect((await upload('target', 'merge', file)).status).to.equal(200);
    expect(await settingsOf('target')).to.deep.equal({ optimizer: { indexing_threshold: 10 }, fullScan: 77 });
    expect(await cypher('target', 'SHOW CONSTRAINTS YIELD name')).to.include('person_id');
    expect((await upload('target', 'replace', file)).status).to.equal(200);
    expect(await settingsOf('target')).to.deep.equal({ optimizer: { indexing_threshold: 1234 }, fullScan: 77 });
  });
});
