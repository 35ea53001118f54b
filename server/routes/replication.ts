import Router from '@koa/router';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Engine } from '../../storage/engine/engine.js';
import { DbError } from '../../storage/errors.js';
import { snapshotFileName } from '../../storage/snapshot/snapshot-files.js';
import { BOOTSTRAP_OPERATION_HEADER, BOOTSTRAP_PATH } from '../../replication/bootstrap.js';
import type { Replication } from '../../replication/replication.js';
import { ok } from '../state.js';

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
    let opId: number;
    try {
      opId = await engine.snapshot();
    } catch (err) {
      throw new DbError(503, `no snapshot can be taken for a replica just now: ${(err as Error).message}`);
    }
    ctx.set(BOOTSTRAP_OPERATION_HEADER, String(opId));
    ctx.type = 'application/octet-stream';
    ctx.body = readFileSync(join(snapshotDir, snapshotFileName(opId)));
  });

  return router;
}
