import Router from '@koa/router';
import { closeSync, createReadStream, fstatSync, openSync } from 'node:fs';
import { join } from 'node:path';
import type { Engine } from '../../storage/engine/engine.js';
import { DbError } from '../../storage/errors.js';
import { snapshotFileName } from '../../storage/snapshot/snapshot-files.js';
import { BOOTSTRAP_OPERATION_HEADER, BOOTSTRAP_PATH } from '../../replication/bootstrap.js';
import type { Replication } from '../../replication/replication.js';
import { ok } from '../state.js';

/** What the snapshot is read in as it goes out: memory holds a piece of it, not the file. */
const STREAM_PIECE_BYTES = 1 << 20;
/** Snapshots taken for one bootstrap when a newer one replaces each before it is opened. */
const OPEN_ATTEMPTS = 3;

/** Takes a snapshot and opens its file, with its size; answers 503 when none can be taken. */
async function openFreshSnapshot(engine: Engine, snapshotDir: string): Promise<{ opId: number; fd: number; size: number }> {
  for (let attempt = 1; ; attempt++) {
    let opId: number;
    try {
      opId = await engine.snapshot();
    } catch (err) {
      throw new DbError(503, `no snapshot can be taken for a replica just now: ${(err as Error).message}`);
    }
    let fd: number;
    try {
      fd = openSync(join(snapshotDir, snapshotFileName(opId)), 'r');
    } catch (err) {
      // Replaced by a newer snapshot between its writing and this open: take one again.
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT' || attempt === OPEN_ATTEMPTS) throw err;
      continue;
    }
    try {
      return { opId, fd, size: fstatSync(fd).size };
    } catch (err) {
      closeSync(fd);
      throw err;
    }
  }
}

/**
 * Replication's endpoints (behind credentials): its status, promotion of a replica, and the
 * snapshot a new replica starts from. Without SERVICE_NATS_URL they answer 404 saying so.
 */
export function replicationRoutes(engine: Engine, replication: Replication | null, snapshotDir: string): Router {
  const router = new Router();
  const need = (): Replication => {
    if (!replication) throw new DbError(404, 'replication is off on this server: start it with SERVICE_NATS_URL to publish its log or follow a primary');
    return replication;
  };

  router.get('/replication', (ctx) => {
    ok(ctx, need().status());
  });

  router.post('/replication/promote', async (ctx) => {
    ok(ctx, await need().promote());
  });

  // A fresh snapshot: everything applied so far, at one operation_id; the stream follows on after it.
  router.get(BOOTSTRAP_PATH, async (ctx) => {
    need();
    const { opId, fd, size } = await openFreshSnapshot(engine, snapshotDir);
    ctx.set(BOOTSTRAP_OPERATION_HEADER, String(opId));
    ctx.type = 'application/octet-stream';
    ctx.length = size;
    // Streamed from the open file: a newer snapshot may delete its name meanwhile, not its bytes.
    ctx.body = createReadStream('', { fd, highWaterMark: STREAM_PIECE_BYTES });
  });

  return router;
}
