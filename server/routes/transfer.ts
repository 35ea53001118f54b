import Router from '@koa/router';
import { Readable } from 'node:stream';
import type { Context } from 'koa';
import { checkCollectionName, requireCollection } from '../../storage/engine/validate-event.js';
import type { Engine } from '../../storage/engine/engine.js';
import { badRequest, CorruptDataError, DbError } from '../../storage/errors.js';
import type { ImportMode } from '../../storage/events/types.js';
import { exportCollection } from '../../storage/export/export-writer.js';
import { FILE_EXTENSION, FORMAT_VERSION } from '../../storage/export/format.js';
import { ImportReader } from '../../storage/export/import-reader.js';
import { ok } from '../state.js';

export const IMPORT_LIMIT_BYTES = 2 ** 30;
const MODES: readonly ImportMode[] = ['create', 'replace', 'merge'];

function tooLarge(ctx: Context): DbError {
  ctx.set('Connection', 'close');
  return new DbError(413, `the import body is larger than ${IMPORT_LIMIT_BYTES} bytes (1 GiB)`);
}

/** Export and import of whole collections in the binary format (storage/export/format.ts). */
export function transferRoutes(engine: Engine): Router {
  const router = new Router({ prefix: '/collections/:name' });

  router.get('/export', (ctx) => {
    const c = requireCollection(engine.collections, ctx.params.name!);
    const exp = exportCollection(c);
    const stream = Readable.from(exp.chunks());
    stream.once('close', exp.release);
    ctx.set('X-Service-Format-Version', String(FORMAT_VERSION));
    ctx.set('X-Service-Point-Count', String(exp.pointCount));
    ctx.set('X-Service-Dimension', String(exp.dimension));
    ctx.set('Content-Disposition', `attachment; filename="${c.name}.${FILE_EXTENSION}"`);
    ctx.type = 'application/octet-stream';
    ctx.body = stream;
  });

  router.post('/import', async (ctx) => {
    const name = ctx.params.name!;
    const mode = ctx.query.mode;
    if (typeof mode !== 'string' || !MODES.includes(mode as ImportMode)) throw badRequest(`mode must be one of ${MODES.join(', ')}`);
    checkCollectionName(name);
    if ((ctx.request.length ?? 0) > IMPORT_LIMIT_BYTES) throw tooLarge(ctx);
    const reader = new ImportReader();
    let bytes = 0;
    try {
      for await (const chunk of ctx.req as AsyncIterable<Buffer>) {
        bytes += chunk.length;
        if (bytes > IMPORT_LIMIT_BYTES) throw tooLarge(ctx);
        reader.feed(chunk);
      }
      const file = reader.finish();
      const { result } = await engine.submit({ type: 'import_collection', name, mode: mode as ImportMode, config: file.config, points: file.points, edges: file.edges });
      if (result.error) throw result.error;
      ok(ctx, { points_imported: result.imported, points_skipped: result.skipped, dimension: engine.collections.get(name)!.config.size, mode });
    } catch (err) {
      if (err instanceof CorruptDataError) throw badRequest(`corrupted import file: ${err.message}`);
      throw err;
    }
  });

  return router;
}
