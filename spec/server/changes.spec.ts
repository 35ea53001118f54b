import { expect } from 'chai';
import { call, startTestServer, useTestServer } from '../helpers/http.js';

interface Change {
  operation_id: number;
  collection: string | null;
  kind: string;
  ids: (number | string)[];
  data: Record<string, any>;
}

const UUID = '0f8fad5b-d9cb-469f-a165-70867728950e';

async function changes(url: string, query: string, headers: Record<string, string> = {}): Promise<{ status: number; lines: Change[]; body: string; headers: Headers }> {
  const res = await fetch(`${url}/changes?${query}`, { headers });
  const body = await res.text();
  const lines = res.status === 200 ? body.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as Change) : [];
  return { status: res.status, lines, body, headers: res.headers };
}

/** Every kind of entry: operations 1..8. */
async function history(url: string): Promise<void> {
  await call(url, 'PUT', '/collections/a', { vectors: { size: 2, distance: 'Euclid' } });
  await call(url, 'PUT', '/collections/a/points?wait=true', { points: [{ id: 1, vector: [1, 2], payload: { k: 'v' }, labels: ['L'] }, { id: UUID, vector: [3, 4] }] });
  await call(url, 'PUT', '/collections/b', { vectors: { size: 1, distance: 'Dot' } });
  await call(url, 'POST', '/collections/a/graph/edges', { from_id: 1, to_id: UUID, relation: 'R', weight: 0.5 });
  await call(url, 'POST', '/collections/a/points/delete?wait=true', { points: [1] });
  await call(url, 'POST', '/collections/a/graph/query', { query: 'CREATE (n:N {x: 1}) RETURN n' });
  const exported = new Uint8Array(await (await fetch(`${url}/collections/a/export`)).arrayBuffer());
  await fetch(`${url}/collections/c/import?mode=create`, { method: 'POST', body: exported, headers: { 'content-type': 'application/octet-stream' } });
  await call(url, 'DELETE', '/collections/b');
}

describe('server: the changefeed', () => {
  const s = useTestServer({}, 'each');

  it('streams every entry from an operation on as NDJSON, each with its collection, kind, ids and data', async () => {
    await history(s.url);
    const { status, lines, headers } = await changes(s.url, 'from=1&wait_ms=0');
    expect(status).to.equal(200);
    expect(headers.get('content-type')).to.match(/^application\/x-ndjson/);
    expect(lines.map((l) => [l.operation_id, l.collection, l.kind])).to.deep.equal([
      [1, 'a', 'create_collection'],
      [2, 'a', 'upsert_points'],
      [3, 'b', 'create_collection'],
      [4, 'a', 'upsert_edge'],
      [5, 'a', 'delete_points'],
      [6, 'a', 'graph_write'],
      [7, 'c', 'import_collection'],
      [8, 'b', 'delete_collection'],
    ]);
    expect(lines[0]!.data.config).to.include({ size: 2, distance: 'Euclid' });
    expect(lines[1]!.ids).to.deep.equal([1, UUID]);
    expect(lines[1]!.data.points).to.deep.equal([
      { id: 1, vector: [1, 2], payload: { k: 'v' }, labels: ['L'] },
      { id: UUID, vector: [3, 4], payload: {}, labels: [] },
    ]);
    expect(lines[3]!.data).to.deep.equal({ from: 1, to: UUID, relation: 'R', weight: 0.5 });
    expect(lines[4]!.ids).to.deep.equal([1]);
    expect(lines[5]!.data.changes[0]).to.include({ kind: 'create_node' });
    expect(lines[6]!.ids).to.deep.equal([lines[5]!.ids[0], UUID], 'an export lists integer ids before UUIDs');
    expect(lines[6]!.data).to.deep.include({ mode: 'create', indexes: {}, settings: {}, exportedAt: 6 });
    expect(lines[6]!.data.points.map((p: { id: unknown }) => p.id)).to.deep.equal(lines[6]!.ids);
  });

  it('writes named and sparse vectors as arrays, in upserts and imports', async () => {
    await call(s.url, 'PUT', '/collections/n', { vectors: { t: { size: 2, distance: 'Dot' } }, sparse_vectors: { w: {} } });
    await call(s.url, 'PUT', '/collections/n/points?wait=true', { points: [{ id: 1, vector: { t: [1, 2], w: { indices: [5, 2], values: [1, 3] } } }] });
    const exported = new Uint8Array(await (await fetch(`${s.url}/collections/n/export`)).arrayBuffer());
    await fetch(`${s.url}/collections/m/import?mode=create`, { method: 'POST', body: exported, headers: { 'content-type': 'application/octet-stream' } });
    const { lines } = await changes(s.url, 'from=2&wait_ms=0');
    const point = { id: 1, vector: null, payload: {}, labels: [], named: { t: [1, 2] }, sparse: { w: { indices: [2, 5], values: [3, 1] } } };
    expect(lines[0]!.data.points).to.deep.equal([point]);
    expect(lines[1]!.data.points).to.deep.equal([point]);
  });

  it('resumes exactly after any operation, and filters by collection', async () => {
    await history(s.url);
    const all = (await changes(s.url, 'from=1&wait_ms=0')).lines;
    for (let op = 1; op <= 9; op++) {
      const { lines } = await changes(s.url, `from=${op}&wait_ms=0`);
      expect(lines, `from=${op}`).to.deep.equal(all.slice(op - 1));
    }
    const { lines } = await changes(s.url, 'from=1&collection=b&wait_ms=0');
    expect(lines.map((l) => l.operation_id)).to.deep.equal([3, 8]);
  });

  it('keeps streaming new entries as they are applied, and stops when the client goes', async () => {
    await call(s.url, 'PUT', '/collections/live', { vectors: { size: 1, distance: 'Dot' } });
    const abort = new AbortController();
    const res = await fetch(`${s.url}/changes?from=1`, { signal: abort.signal });
    const reader = res.body!.getReader();
    const seen: Change[] = [];
    let buffered = '';
    const nextChange = async (): Promise<Change> => {
      while (!buffered.includes('\n')) {
        const { value, done } = await reader.read();
        if (done) throw new Error('the feed ended');
        buffered += new TextDecoder().decode(value);
      }
      const at = buffered.indexOf('\n');
      const line = buffered.slice(0, at);
      buffered = buffered.slice(at + 1);
      return JSON.parse(line) as Change;
    };
    seen.push(await nextChange());
    const write = await call(s.url, 'PUT', '/collections/live/points?wait=true', { points: [{ id: 7, vector: [1] }] });
    seen.push(await nextChange());
    expect(seen.map((c) => [c.operation_id, c.kind])).to.deep.equal([
      [1, 'create_collection'],
      [write.body.result.operation_id, 'upsert_points'],
    ]);
    abort.abort();
    await reader.cancel().catch(() => undefined);
    // The server takes writes as before once the client is gone.
    expect((await call(s.url, 'PUT', '/collections/live/points?wait=true', { points: [{ id: 8, vector: [1] }] })).status).to.equal(200);
  });

  it('misses nothing across a restart: the entries before and after it follow each other', async () => {
    await history(s.url);
    await s.restart();
    await call(s.url, 'PUT', '/collections/after', { vectors: { size: 1, distance: 'Dot' } });
    const { lines } = await changes(s.url, 'from=1&wait_ms=0');
    expect(lines.slice(0, 8).map((l) => l.operation_id)).to.deep.equal([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(lines.slice(8).map((l) => [l.collection, l.kind])).to.deep.equal([['after', 'create_collection']]);
  });

  it('speaks Server-Sent Events when asked, resuming after Last-Event-ID', async () => {
    await history(s.url);
    const res = await fetch(`${s.url}/changes?wait_ms=0`, { headers: { accept: 'text/event-stream', 'last-event-id': '6' } });
    expect(res.headers.get('content-type')).to.match(/^text\/event-stream/);
    const events = (await res.text()).split('\n\n').filter((e) => e !== '');
    expect(events.map((e) => e.split('\n').slice(0, 2))).to.deep.equal([
      ['id: 7', 'event: change'],
      ['id: 8', 'event: change'],
    ]);
    expect(JSON.parse(events[1]!.split('\n')[2]!.slice('data: '.length))).to.include({ operation_id: 8, kind: 'delete_collection' });
  });

  it('refuses bad parameters by name', async () => {
    for (const [query, message] of [
      ['from=-1', /from must be a non-negative integer/],
      ['from=1&wait_ms=soon', /wait_ms must be a non-negative integer/],
      ['collection=', /collection must be one collection name/],
    ] as const) {
      const res = await fetch(`${s.url}/changes?${query}`);
      expect(res.status, query).to.equal(400);
      expect(((await res.json()) as { message: string }).message).to.match(message);
    }
  });
});

describe('server: the changefeed after compaction, and with auth', () => {
  it('answers 410 naming the oldest operation_id still in the log', async () => {
    const s = await startTestServer({ SERVICE_SNAPSHOT_EVERY: '3', SERVICE_LOG_RETENTION: '1' });
    try {
      await call(s.url, 'PUT', '/collections/x', { vectors: { size: 1, distance: 'Dot' } });
      for (let id = 0; id < 6; id++) await call(s.url, 'PUT', '/collections/x/points?wait=true', { points: [{ id, vector: [1] }] });
      await s.service.engine.snapshot();
      const oldest = s.service.engine.log.firstOperationId;
      expect(oldest).to.be.above(1);
      const gone = await changes(s.url, 'from=1&wait_ms=0');
      expect(gone.status).to.equal(410);
      expect(gone.headers.get('x-oldest-operation-id')).to.equal(String(oldest));
      expect(JSON.parse(gone.body).message).to.include(`the oldest available operation_id is ${oldest}`);
      const rest = await changes(s.url, `from=${oldest}&wait_ms=0`);
      expect(rest.lines[0]!.operation_id).to.equal(oldest);
      const past = await fetch(`${s.url}/collections/x/export?at=1`);
      expect(past.status, 'nor can the state at a compacted operation be exported').to.equal(410);
      expect(((await past.json()) as { message: string }).message).to.match(/^the state at operation 1 can no longer be rebuilt: the log keeps operations from \d+ on/);
    } finally {
      await s.stop();
      s.remove();
    }
  });

  it('needs the credentials every other route needs', async () => {
    const s = await startTestServer({ SERVICE_API_KEYS: 'k1' });
    try {
      expect((await changes(s.url, 'from=1&wait_ms=0')).status).to.equal(401);
      expect((await changes(s.url, 'from=1&wait_ms=0', { 'api-key': 'k1' })).status).to.equal(200);
    } finally {
      await s.stop();
      s.remove();
    }
  });
});

describe('server: read your writes (min_operation_id)', () => {
  const s = useTestServer({}, 'each');

  it('answers at once when the operation is applied, and waits for one that is not yet', async () => {
    await call(s.url, 'PUT', '/collections/r', { vectors: { size: 1, distance: 'Dot' } });
    const first = await call(s.url, 'PUT', '/collections/r/points?wait=true', { points: [{ id: 1, vector: [1] }] });
    const op = first.body.result.operation_id as number;
    const now = await call(s.url, 'POST', '/collections/r/points/count', { consistency: { min_operation_id: op } });
    expect(now.body.result.count).to.equal(1);
    const later = call(s.url, 'POST', '/collections/r/points/scroll', { consistency: { min_operation_id: op + 1, timeout_ms: 30_000 }, with_payload: false });
    await call(s.url, 'PUT', '/collections/r/points?wait=true', { points: [{ id: 2, vector: [1] }] });
    expect((await later).body.result.points.map((p: { id: number }) => p.id)).to.deep.equal([1, 2], 'the read waited for the write it named');
    const byHeader = await call(s.url, 'POST', '/collections/r/points/count', {}, { 'x-min-operation-id': String(op + 1) });
    expect(byHeader.body.result.count).to.equal(2);
  });

  it('answers 504 naming the operation when it is not applied within the timeout', async () => {
    await call(s.url, 'PUT', '/collections/r', { vectors: { size: 1, distance: 'Dot' } });
    const res = await call(s.url, 'POST', '/collections/r/points/count', { consistency: { min_operation_id: 1000, timeout_ms: 0 } });
    expect(res.status).to.equal(504);
    expect(res.body.message).to.match(/^operation 1000 is not applied after 0 ms \(applied up to 1\)/);
  });

  it('refuses a malformed consistency by name', async () => {
    await call(s.url, 'PUT', '/collections/r', { vectors: { size: 1, distance: 'Dot' } });
    for (const [consistency, message] of [
      ['majority', /consistency must be an object/],
      [{}, /consistency.min_operation_id is required/],
      [{ min_operation_id: -1 }, /consistency.min_operation_id must be an operation_id/],
      [{ min_operation_id: 1, wait: 1 }, /consistency.wait is not a field we handle/],
      [{ min_operation_id: 1, timeout_ms: 1e9 }, /consistency.timeout_ms must be an integer from 0 to 60000/],
    ] as const) {
      const res = await call(s.url, 'POST', '/collections/r/points/count', { consistency });
      expect(res.status, JSON.stringify(consistency)).to.equal(400);
      expect(res.body.message).to.match(message);
    }
    expect((await call(s.url, 'GET', '/collections/r', undefined, { 'x-min-operation-id': 'x' })).body.message).to.match(/X-Min-Operation-Id must be an operation_id/);
  });
});

describe('server: export as of an operation', () => {
  const s = useTestServer({}, 'each');
  const exportAt = async (name: string, at: string): Promise<{ status: number; ids: unknown[]; message?: string }> => {
    const res = await fetch(`${s.url}/collections/${name}/export?at=${at}`);
    if (res.status !== 200) return { status: res.status, ids: [], message: ((await res.json()) as { message: string }).message };
    const { ImportReader } = await import('../../storage/export/import-reader.js');
    const reader = new ImportReader();
    reader.feed(new Uint8Array(await res.arrayBuffer()));
    return { status: 200, ids: reader.finish().points.map((p) => p.id) };
  };

  it('exports the collection as it was right after any operation, while the live one has moved on', async () => {
    await call(s.url, 'PUT', '/collections/h', { vectors: { size: 1, distance: 'Dot' } });
    for (let id = 1; id <= 4; id++) await call(s.url, 'PUT', '/collections/h/points?wait=true', { points: [{ id, vector: [id] }] });
    await call(s.url, 'POST', '/collections/h/points/delete?wait=true', { points: [2] });
    await s.service.engine.snapshot();
    await call(s.url, 'PUT', '/collections/h/points?wait=true', { points: [{ id: UUID, vector: [9] }] });
    expect((await exportAt('h', '1')).ids).to.deep.equal([]);
    expect((await exportAt('h', '3')).ids).to.deep.equal([1, 2]);
    expect((await exportAt('h', '6')).ids).to.deep.equal([1, 3, 4], 'the snapshot at 6 itself');
    expect((await exportAt('h', '7')).ids).to.deep.equal([1, 3, 4, UUID]);
    const live = await exportAt('h', String(s.service.engine.lastAppliedOperationId));
    expect(live.ids).to.deep.equal([1, 3, 4, UUID]);
  });

  it('answers 404 before the collection existed, 400 past the last operation or for a bad at', async () => {
    await call(s.url, 'PUT', '/collections/h', { vectors: { size: 1, distance: 'Dot' } });
    await call(s.url, 'PUT', '/collections/later', { vectors: { size: 1, distance: 'Dot' } });
    expect(await exportAt('later', '1')).to.deep.include({ status: 404, message: 'collection "later" did not exist right after operation 1' });
    expect(await exportAt('h', '99')).to.deep.include({ status: 400, message: 'at=99 is past the last applied operation, 2' });
    expect((await exportAt('h', 'x')).message).to.match(/at must be an operation_id/);
  });
});
