import { expect } from 'chai';
import { QdrantClient } from '@qdrant/js-client-rest';
import { useTestServer } from '../helpers/http.js';
import { randomVectors } from '../helpers/vectors.js';
import { refusal } from '../helpers/qdrant-refusal.js';

const DIM = 32;
const vectors = randomVectors(1_500, DIM, 3);
const query = Array.from(randomVectors(1, DIM, 99)[0]!);

describe('clients: scalar and binary quantization with @qdrant/js-client-rest 1.18', function () {
  this.timeout(60_000);
  const s = useTestServer({}, 'each');
  const client = () => new QdrantClient({ url: s.service.qdrantUrl!, checkCompatibility: false });

  async function fill(name: string): Promise<void> {
    const q = client();
    await q.upsert(name, { wait: true, points: vectors.map((v, id) => ({ id, vector: Array.from(v), payload: { even: id % 2 === 0 } })) });
    for (let i = 0; i < 200 && (await q.getCollection(name)).status !== 'green'; i++) await new Promise((r) => setTimeout(r, 25));
  }

  /** Ids and scores of the search with these quantization params. */
  const search = async (name: string, quantization?: { ignore?: boolean; rescore?: boolean; oversampling?: number }) =>
    (await client().search(name, { vector: query, limit: 10, params: quantization ? { quantization } : {} })).map((h) => [h.id, h.score]);

  /** Whether searches walk int8 codes: their own estimates, unrescored, differ from the float scores. */
  async function walksCodes(name: string): Promise<boolean> {
    const floats = await search(name, { ignore: true });
    const estimated = await search(name, { rescore: false });
    return JSON.stringify(estimated.map(([, score]) => score)) !== JSON.stringify(floats.map(([, score]) => score));
  }

  it('creates a quantized collection, reports its config, and searches it on the codes with float rescoring', async () => {
    const q = client();
    await q.createCollection('docs', { vectors: { size: DIM, distance: 'Cosine' }, quantization_config: { scalar: { type: 'int8', quantile: 0.99, always_ram: true } } });
    expect((await q.getCollection('docs')).config.quantization_config).to.deep.equal({ scalar: { type: 'int8', quantile: 0.99, always_ram: true } });
    await fill('docs');
    const floats = await search('docs', { ignore: true });
    const rescored = await search('docs');
    expect(rescored.map(([id]) => id)).to.deep.equal(floats.map(([id]) => id));
    expect(rescored, 'rescored with the float vectors: the same scores').to.deep.equal(floats);
    expect(await walksCodes('docs')).to.equal(true);
    const hits = await q.search('docs', { vector: query, limit: 3, with_payload: true, params: { quantization: { oversampling: 2 } } });
    const floatHits = await q.search('docs', { vector: query, limit: 3, with_payload: true, params: { quantization: { ignore: true } } });
    expect(hits, 'the hits of a float search, shape and all').to.deep.equal(floatHits);
    const viaQuery = await q.query('docs', { query, limit: 10, params: { quantization: { rescore: true, oversampling: 3 } } });
    expect(viaQuery.points.map((p) => p.id)).to.deep.equal(floats.map(([id]) => id));
    const recommended = await q.recommend('docs', { positive: [1], limit: 5, params: { quantization: { ignore: false } } });
    expect(recommended).to.have.length(5);
  });

  it('turns quantization on and off for an existing collection with PATCH', async () => {
    const q = client();
    await q.createCollection('docs', { vectors: { size: DIM, distance: 'Euclid' } });
    await fill('docs');
    expect((await q.getCollection('docs')).config.quantization_config).to.equal(null);
    expect(await walksCodes('docs'), 'no codes yet').to.equal(false);
    await q.updateCollection('docs', { quantization_config: { scalar: { type: 'int8' } } });
    expect((await q.getCollection('docs')).config.quantization_config).to.deep.equal({ scalar: { type: 'int8' } });
    expect(await walksCodes('docs')).to.equal(true);
    await q.updateCollection('docs', { quantization_config: { binary: { always_ram: false } } });
    expect((await q.getCollection('docs')).config.quantization_config, 'binary replaces scalar').to.deep.equal({ binary: { always_ram: false } });
    expect(await walksCodes('docs')).to.equal(true);
    await q.updateCollection('docs', { quantization_config: 'Disabled' });
    expect((await q.getCollection('docs')).config.quantization_config).to.equal(null);
    expect(await walksCodes('docs')).to.equal(false);
  });

  it('refuses a bad quantization config or search parameter with a 400 that names the field', async () => {
    const q = client();
    const create = (quantization_config: unknown) => q.createCollection('bad', { vectors: { size: DIM, distance: 'Dot' }, quantization_config } as never);
    expect(await refusal(create({ scalar: { type: 'int4' } }))).to.match(/^400 .*quantization_config\.scalar\.type/);
    expect(await refusal(create({ scalar: { type: 'int8', quantile: 0.2 } }))).to.match(/^400 .*quantization_config\.scalar\.quantile/);
    expect(await refusal(create({ scalar: { type: 'int8', bits: 4 } }))).to.equal('400 quantization_config.scalar.bits is not a scalar quantization setting (type, quantile, always_ram)');
    expect(await refusal(create({ binary: { always_ram: 'yes' } }))).to.match(/^400 .*quantization_config\.binary\.always_ram/);
    expect(await refusal(create({ scalar: { type: 'int8' }, binary: {} }))).to.equal('400 quantization_config names both scalar and binary: choose one');
    expect(await q.collectionExists('bad')).to.deep.equal({ exists: false });
    await q.createCollection('docs', { vectors: { size: DIM, distance: 'Dot' } });
    expect(await refusal(q.updateCollection('docs', { quantization_config: { product: { compression: 'x4' } } } as never))).to.match(/^400 quantization_config\.product/);
    expect(await refusal(q.search('docs', { vector: query, params: { quantization: { oversample: 2 } } as never }))).to.equal('400 unknown field "params.quantization.oversample": the fields of params.quantization are ignore, rescore, oversampling');
    expect(await refusal(q.search('docs', { vector: query, params: { quantization: { oversampling: 0.5 } } }))).to.equal('400 params.quantization.oversampling must be a number from 1 to 100, got 0.5');
    expect(await refusal(q.query('docs', { query, params: { quantization: { ignore: 'yes' } } as never }))).to.equal('400 params.quantization must be an object {ignore, rescore, oversampling}, got {"ignore":"yes"}');
    expect(await refusal(q.query('docs', { query, params: { quantization: { rescor: true } } as never }))).to.match(/^400 unknown field "params\.quantization\.rescor"/);
  });

  it('keeps the config, and searches the codes rebuilt, across a restart and an export and import', async () => {
    const q = client();
    await q.createCollection('docs', { vectors: { size: DIM, distance: 'Dot' }, quantization_config: { scalar: { type: 'int8' } } });
    await fill('docs');
    const before = await search('docs');
    await s.restart();
    expect((await client().getCollection('docs')).config.quantization_config).to.deep.equal({ scalar: { type: 'int8' } });
    expect(await walksCodes('docs')).to.equal(true);
    expect(await search('docs')).to.deep.equal(before);
    const file = await (await fetch(`${s.url}/collections/docs/export`)).arrayBuffer();
    const imported = await fetch(`${s.url}/collections/copy/import?mode=create`, { method: 'POST', body: Buffer.from(file), headers: { 'content-type': 'application/octet-stream' } });
    expect(imported.status).to.equal(200);
    await fill('copy');
    expect((await client().getCollection('copy')).config.quantization_config).to.deep.equal({ scalar: { type: 'int8' } });
    expect(await walksCodes('copy')).to.equal(true);
  });
});
