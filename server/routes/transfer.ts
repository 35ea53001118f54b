import Router from '@koa/router';
import { Readable } from 'node:stream';
import type { Context } from 'koa';
import { checkCollectionName, requireCollection } from '../../storage/engine/validate-event.js';
import type { Engine } from '../../storage/engine/engine.js';
import { badRequest, DbError } from '../../storage/errors.js';
import { collectionAt } from '../../storage/engine/past-state.js';
import { exportCollection } from '../../storage/export/export-writer.js';
import { FILE_EXTENSION, FORMAT_VERSION } from '../../storage/export/format.js';
import { importStream } from '../../storage/engine/stream-import.js';
import { importResultJson, parseImportMode } from '../../query/api/transfer.js';
import type { CypherReplicas } from '../../workers/cypher-replicas.js';
import { ok } from '../state.js';

export const IMPORT_LIMIT_BYTES = 2 ** 30;

function tooLarge(ctx: Context): DbError {
  ctx.set('Connection', 'close');
  return new DbError(413, `the import body is larger than ${IMPORT_LIMIT_BYTES} bytes (1 GiB)`);
}

/**
 * Export and import of whole collections in the binary format (storage/export/format.ts). An
 * export of the current state is encoded on a Cypher replica once one has its state (the
 * request thread only passes its chunks on), else here in slices; one as of an operation
 * (`?at=`) is rebuilt and encoded here.
 */
export function transferRoutes(engine: Engine, replicas: CypherReplicas | null = null): Router {
  const router = new Router({ prefix: '/collections/:name' });

  router.get('/export', async (ctx) => {
    const at = ctx.query.at;
    if (at !== undefined && (typeof at !== 'string' || !/^\d{1,15}$/.test(at))) throw badRequest(`at must be an operation_id (a non-negative integer), got ${JSON.stringify(at)}`);
    const c = at === undefined ? requireCollection(engine.collections, ctx.params.name!) : await collectionAt(engine, ctx.params.name!, Number(at));
    const remote = at === undefined ? await replicas?.export(c.name, { logHead: true, digest: false }) : null;
    const logHead = remote ? remote.logHead : (engine.log.headHash ?? '');
    const exp = remote ?? exportCollection(c, engine.log.lastOperationId, logHead);
    const stream = Readable.from(exp.stream(() => engine.betweenSlices()));
    stream.once('close', exp.release);
    ctx.set('X-Service-Format-Version', String(FORMAT_VERSION));
    if (logHead) ctx.set('X-Service-Log-Head', logHead);
    ctx.set('X-Service-Point-Count', String(exp.pointCount));
    ctx.set('X-Service-Dimension', String(exp.dimension));
    ctx.set('Content-Disposition', `attachment; filename="${c.name}.${FILE_EXTENSION}"`);
    ctx.type = 'application/octet-stream';
    ctx.body = stream;
  });

  router.post('/import', async (ctx) => {
    const name = ctx.params.name!;
    const mode = parseImportMode(ctx.query.mode);
    checkCollectionName(name);
    if ((ctx.request.length ?? 0) > IMPORT_LIMIT_BYTES) throw tooLarge(ctx);
    async function* limited(): AsyncGenerator<Uint8Array> {
      let bytes = 0;
      for await (const chunk of ctx.req as AsyncIterable<Buffer>) {
        bytes += chunk.length;
        if (bytes > IMPORT_LIMIT_BYTES) throw tooLarge(ctx);
        yield chunk;
      }
    }
    const { opId, result } = await importStream(engine, name, mode, limited());
    ok(ctx, importResultJson(engine, name, mode, opId, result));
  });

  return router;
}
