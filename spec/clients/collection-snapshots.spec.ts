import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { QdrantClient } from '@qdrant/js-client-rest';
import { call, useTestServer } from '../helpers/http.js';

describe('clients: collection snapshots with @qdrant/js-client-rest 1.18', function () {
  this.timeout(30_000);
  // One Cypher replica whatever the machine's cores: a case below has the snapshot encoded there.
  const s = useTestServer({ SERVICE_CYPHER_WORKERS: '1' }, 'each');
  const client = () => new QdrantClient({ url: s.service.qdrantUrl!, checkCompatibility: false });
  const ids = async (name: string) => (await client().scroll(name, { with_payload: false })).points.map((p) => p.id);

  beforeEach(async () => {
    const q = client();
    await q.createCollection('c', { vectors: { size: 2, distance: 'Dot' } });
    await q.upsert('c', { wait: true, points: [1, 2, 3].map((id) => ({ id, vector: [id, 1], payload: { id } })) });
  });

  // A snapshot is encoded (and hashed) on the request thread until a Cypher replica has its state, then on the replica.
  for (const where of ['the request thread', 'a Cypher replica'] as const) {
    it(`creates, lists, downloads and deletes snapshots, and recovers the collection from one (encoded on ${where})`, async () => {
      const q = client();
      if (where === 'a Cypher replica') await s.service.cypher.ready();
      const made = await q.createSnapshot('c');
      expect(s.service.cypher.exported, `encoded on ${where}`).to.equal(where === 'a Cypher replica' ? 1 : 0);
      expect(made!.name).to.match(/^c-.*\.snapshot$/);
      const listed = await q.listSnapshots('c');
      expect(listed.map((x) => x.name)).to.deep.equal([made!.name]);
      const download = await fetch(`${s.service.qdrantUrl}/collections/c/snapshots/${made!.name}`);
      const bytes = new Uint8Array(await download.arrayBuffer());
      expect(bytes.length).to.equal(made!.size);
      expect(createHash('sha256').update(bytes).digest('hex')).to.equal(made!.checksum);
      await q.delete('c', { wait: true, points: [1, 2] });
      await q.upsert('c', { wait: true, points: [{ id: 9, vector: [9, 9] }] });
      const location = pathToFileURL(join(s.dataDir, 'collection-snapshots', 'c', made!.name)).href;
      expect(await q.recoverSnapshot('c', { location, checksum: made!.checksum })).to.equal(true);
      expect(await ids('c')).to.deep.equal([1, 2, 3]);
      expect(await q.deleteSnapshot('c', made!.name)).to.equal(true);
      expect(await q.listSnapshots('c')).to.deep.equal([]);
    });
  }

  it('restores an uploaded snapshot (multipart field "snapshot") into a new collection, one import that survives a restart', async () => {
    const made = (await client().createSnapshot('c'))!;
    const bytes = await (await fetch(`${s.url}/collections/c/snapshots/${made.name}`)).arrayBuffer();
    const form = new FormData();
    form.append('snapshot', new Blob([bytes]), made.name);
    const res = await fetch(`${s.service.qdrantUrl}/collections/copy/snapshots/upload`, { method: 'PUT', body: form });
    expect(res.status, await res.clone().text()).to.equal(200);
    await s.restart();
    expect(await ids('copy')).to.deep.equal([1, 2, 3]);
  });

  it('refuses a location outside the snapshots directory, a wrong checksum, and a snapshot that is not there', async () => {
    const made = (await client().createSnapshot('c'))!;
    const outside = await call(s.url, 'PUT', '/collections/c/snapshots/recover', { location: 'file:///etc/passwd' });
    expect(outside.status).to.equal(400);
    expect(outside.body.message).to.match(/inside the snapshots directory/);
    const location = pathToFileURL(join(s.dataDir, 'collection-snapshots', 'c', made.name)).href;
    const wrong = await call(s.url, 'PUT', '/collections/c/snapshots/recover', { location, checksum: '00' });
    expect(wrong.body.message).to.equal('the snapshot file does not have the checksum given');
    const missing = await call(s.url, 'DELETE', '/collections/c/snapshots/nope.snapshot');
    expect(missing.status).to.equal(404);
    const http = await call(s.url, 'PUT', '/collections/c/snapshots/recover', { location: 'http://example.com/x.snapshot' });
    expect(http.body.message).to.match(/must be a file:\/\/ URL/);
  });
});
