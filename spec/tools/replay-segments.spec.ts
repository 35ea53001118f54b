import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Engine } from '../../storage/engine/engine.js';
import type { CollectionConfig } from '../../storage/events/types.js';
import { ImportReader } from '../../storage/export/import-reader.js';
import { LmdbLog } from '../../storage/log/lmdb-log.js';
import { SnapshotFiles } from '../../storage/snapshot/snapshot-files.js';
import { MAX_MEMORY_BYTES, segmentMemoryBytes, setVectorSegmentBytes } from '../../storage/views/vector-segments.js';
import { verify as verifyInProcess } from '../../tools/replay/commands.js';
import { randomVectors } from '../helpers/vectors.js';
import { useHistory, verify } from './replay-history.js';
import { runToolProcess } from './tool-process.js';

const DIM = 64;
const config: CollectionConfig = { size: DIM, distance: 'Euclid', m: 8, m0: 16, efConstruct: 16, ml: 0.5 };
const vectors = randomVectors(1000, DIM, 8);

/** Points across many 64-slot segments (int8 codes too), deletes whose slots later points take, a snapshot between. */
async function history(engine: Engine): Promise<void> {
  await engine.submit({ type: 'create_collection', name: 's', config, settings: { quantization_config: { scalar: { type: 'int8' }, binary: null, product: null } } });
  await engine.submit({ type: 'upsert_points', collection: 's', points: vectors.slice(0, 700).map((vector, id) => ({ id, vector, payload: { id }, labels: [] })) });
  await engine.indexed();
  await engine.submit({ type: 'delete_points', collection: 's', ids: Array.from({ length: 100 }, (_, i) => i * 5) });
  await engine.indexed();
  await engine.snapshot();
  await engine.submit({ type: 'upsert_points', collection: 's', points: vectors.slice(700).map((vector, i) => ({ id: 700 + i, vector, payload: { id: 700 + i }, labels: [] })) });
  expect(engine.collections.get('s')!.store.segments.length, 'the writing engine has many segments').to.be.greaterThan(10);
}

describe('tools/replay: a log written by a store of many segments', function () {
  this.timeout(120_000);
  before(() => setVectorSegmentBytes(segmentMemoryBytes(DIM, 64)));
  after(() => setVectorSegmentBytes(MAX_MEMORY_BYTES));
  const dir = useHistory(history);

  it('verifies with stores of one segment (another process) and of many (this one)', () => {
    const v = verify(dir.path);
    expect(v.code, v.out + v.err).to.equal(0);
    const lines: string[] = [];
    const log = LmdbLog.open(dir.path);
    try {
      expect(verifyInProcess({ log, snapshots: new SnapshotFiles(join(dir.path, 'snapshots')), print: (line) => lines.push(line) }), lines.join('\n')).to.equal(0);
    } finally {
      void log.close();
    }
  });

  it('rebuilds the state into an export file holding every vector as written', () => {
    const out = join(dir.path, 'out');
    const r = runToolProcess('replay', ['rebuild', '--data-dir', dir.path, '--until', '4', '--out', out]);
    expect(r.code, r.err).to.equal(0);
    const reader = new ImportReader();
    reader.feed(readFileSync(join(out, 's.vgdb')));
    const points = reader.finish().points;
    expect(points.length).to.equal(900);
    for (const p of points) expect(Array.from(p.vector!), `point ${String(p.id)}`).to.deep.equal(Array.from(vectors[p.id as number]!));
  });
});
