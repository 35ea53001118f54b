import { join } from 'node:path';
import { Engine } from '../../storage/engine/engine.js';
import { LmdbLog } from '../../storage/log/lmdb-log.js';
import { SnapshotFiles } from '../../storage/snapshot/snapshot-files.js';
import { searchCollection } from '../../query/search/vector-search.js';
import { seeded } from '../bench/dataset.js';
import { rssMb } from '../lib/process-memory.js';
import { runTool } from '../lib/run-tool.js';
import { switchFlag, text, UsageError, wholeNumber } from '../lib/args.js';

const USAGE = `usage: npm run scale-demo -- write|restart --dir DIR [--points N] [--dim D] [--snapshot]

One collection of more vectors than one WebAssembly memory holds (README: limits at scale), through
the engine on a real data dir, with background indexing held off (the search scans the pending
points exactly):
  write     creates collection "big" in DIR (a fresh directory), upserts N seeded vectors of D
            dimensions in batches of 10,000, then searches for points of the last segment
  restart   opens DIR again (the newest snapshot, then the log) and searches the same points
With --snapshot, a snapshot is taken before closing (closing takes one anyway when there is news).
Prints times, the store's segments and the process's RSS.`;

const COLLECTION = 'big';
const BATCH = 10_000;

/** Point id's vector: the same seeded floats at write and restart. */
function vectorOf(id: number, dim: number): Float32Array {
  const next = seeded(id + 1);
  return Float32Array.from({ length: dim }, () => next() * 2 - 1);
}

const say = (line: string) => process.stdout.write(`${line} (RSS ${Math.round(rssMb(process.pid))} MB)\n`);
const seconds = (since: number) => ((performance.now() - since) / 1000).toFixed(1);

function open(dir: string): Engine {
  // A scheduler that never runs: background indexing (hours for millions of points) stays off.
  return new Engine(LmdbLog.open(join(dir, 'log')), {
    snapshots: new SnapshotFiles(join(dir, 'snapshots'), (file, reason) => say(`snapshot ${file} skipped: ${reason}`)),
    schedule: () => undefined,
    onSnapshot: ({ opId, ms, bytes, error }) => say(error ? `snapshot at operation ${opId} failed after ${(ms / 1000).toFixed(1)} s: ${error.message}` : `snapshot at operation ${opId}: ${bytes} bytes in ${(ms / 1000).toFixed(1)} s`),
  });
}

/** Searches for the last point and a few before it (the last segments): each must be its own nearest. */
function probe(engine: Engine, points: number, dim: number): void {
  const c = engine.collections.get(COLLECTION);
  if (!c) throw new Error(`no collection "${COLLECTION}"`);
  say(`collection "${COLLECTION}": ${c.store.liveCount} points in ${c.store.segments.length} segment(s) of ${c.store.segmentSlots} slots, ${c.pendingCount} not indexed`);
  for (const id of [points - 1, points - 2, Math.floor(points * 0.75), 0]) {
    const started = performance.now();
    const [hit] = searchCollection(c, { vector: vectorOf(id, dim), limit: 1, offset: 0, ef: 64, filter: null, scoreThreshold: null });
    if (hit?.id !== id) throw new Error(`the search for point ${id} found ${String(hit?.id)}`);
    say(`point ${id} (slot ${c.store.slotOf(id)}, segment ${c.store.slotOf(id) >>> c.store.segmentShift}) found by an exact scan of ${c.pendingCount} points in ${seconds(started)} s`);
  }
}

runTool(
  {
    name: 'scale-demo',
    usage: USAGE,
    flags: { dir: text('a directory'), points: wholeNumber({ min: 1, max: 100_000_000, expects: 'a whole number from 1 to 100,000,000' }, 9_000_000), dim: wholeNumber({ min: 1, max: 65_536, expects: 'a whole number from 1 to 65,536' }, 128), snapshot: switchFlag },
    commands: { write: ['dir', 'points', 'dim', 'snapshot'], restart: ['dir', 'points', 'dim', 'snapshot'] },
  },
  async ({ command, values }) => {
    const { points, dim } = values;
    if (!values.dir) throw new UsageError(`${command} needs --dir DIR`);
    let started = performance.now();
    const engine = open(values.dir);
    await engine.start();
    say(`started in ${seconds(started)} s`);
    if (command === 'write') {
      await engine.submit({ type: 'create_collection', name: COLLECTION, config: { size: dim, distance: 'Euclid', m: 16, m0: 32, efConstruct: 100, ml: 1 / Math.log(16) } });
      started = performance.now();
      for (let first = 0; first < points; first += BATCH) {
        const ids = Array.from({ length: Math.min(BATCH, points - first) }, (_, k) => first + k);
        await engine.submit({ type: 'upsert_points', collection: COLLECTION, points: ids.map((id) => ({ id, vector: vectorOf(id, dim), payload: {}, labels: [] })) });
        if ((first / BATCH) % 100 === 0) say(`${first + ids.length} points upserted in ${seconds(started)} s`);
      }
      say(`${points} points of ${dim} dimensions upserted in ${seconds(started)} s`);
    }
    probe(engine, points, dim);
    if (values.snapshot) await engine.snapshot().catch(() => undefined);
    await engine.close();
    return 0;
  },
);
