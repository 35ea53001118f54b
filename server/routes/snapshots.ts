import Router from '@koa/router';
import { createReadStream, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { resolve, sep } from 'node:path';
import type { Context } from 'koa';
import type { Engine } from '../../storage/engine/engine.js';
import { requireCollection, checkCollectionName } from '../../storage/engine/validate-event.js';
import { badRequest, notFound } from '../../storage/errors.js';
import { createHash } from 'node:crypto';
import { checkBody } from '../../query/api/check-body.js';
import { bodyObject } from '../../query/api/fields.js';
import { recoverSnapshotBody } from '../../query/api/schemas/snapshots.js';
import { importStream } from '../../storage/engine/stream-import.js';
import { exportCollection } from '../../storage/export/export-writer.js';
import type { CypherReplicas } from '../../workers/cypher-replicas.js';
import type { CollectionSnapshots } from '../collection-snapshots.js';
import { ok } from '../state.js';

/** Restores a collection from a snapshot file's bytes: the file replaces the collection, as one import. */
async function restore(engine: Engine, collection: string, bytes: Uint8Array): Promise<void> {
  const { result } = await importStream(engine, collection, 'replace', [bytes]);
  if (result.error) throw result.error;
}

/**
 * Qdrant's collection snapshots: create, list, download, delete, recover (a file of the snapshots
 * directory) and upload. A snapshot is the collection's export, encoded and hashed on a Cypher
 * replica once one has its state, else on the request thread in slices.
 */
export function snapshotRoutes(engine: Engine, snapshots: CollectionSnapshots, replicas: CypherReplicas | null = null): Router {
  const router = new Router({ prefix: '/collections/:name' });
  const nameOf = (ctx: Context) => requireCollection(engine.collections, ctx.params.name!).name;

  router.post('/snapshots', async (ctx) => {
    const c = requireCollection(engine.collections, ctx.params.name!);
    const exp = (await replicas?.export(c.name, { logHead: false, digest: true })) ?? exportCollection(c, engine.log.lastOperationId);
    ok(ctx, await snapshots.create(c.name, exp, new Date(), () => engine.betweenSlices()));
  });

  router.get('/snapshots', (ctx) => {
    ok(ctx, snapshots.list(nameOf(ctx)));
  });

  router.get('/snapshots/:snapshot', (ctx) => {
    const file = snapshots.fileOf(nameOf(ctx), ctx.params.snapshot!);
    ctx.type = 'application/octet-stream';
    ctx.set('Content-Disposition', `attachment; filename="${ctx.params.snapshot}"`);
    ctx.body = createReadStream(file);
  });

  router.delete('/snapshots/:snapshot', async (ctx) => {
    await snapshots.remove(nameOf(ctx), ctx.params.snapshot!);
    ok(ctx, true);
  });

  router.put('/snapshots/recover', async (ctx) => {
    const name = ctx.params.name!;
    checkCollectionName(name);
    const body = checkBody(recoverSnapshotBody, bodyObject(ctx.request.body));
    if (!body.location.startsWith('file://')) {
      throw badRequest('location must be a file:// URL of a snapshot in this server\'s snapshots directory (download others and upload them to /snapshots/upload)');
    }
    const path = resolve(fileURLToPath(body.location));
    if (!path.startsWith(resolve(snapshots.dirOf('')) + sep)) throw badRequest(`location must be inside the snapshots directory ${snapshots.dirOf('')}`);
    let bytes: Buffer;
    try {
      bytes = readFileSync(path);
    } catch {
      throw notFound(`no snapshot file at ${body.location}`);
    }
    if (body.checksum && createHash('sha256').update(bytes).digest('hex') !== body.checksum.toLowerCase()) throw badRequest('the snapshot file does not have the checksum given');
    await restore(engine, name, bytes);
    ok(ctx, true);
  });

  router.put('/snapshots/upload', async (ctx) => {
    const name = ctx.params.name!;
    checkCollectionName(name);
    const files = (ctx.request as { files?: Record<string, { filepath: string } | { filepath: string }[]> }).files;
    const upload = files?.snapshot;
    const one = Array.isArray(upload) ? upload[0] : upload;
    if (!one) throw badRequest('send the snapshot file as multipart/form-data field "snapshot"');
    await restore(engine, name, readFileSync(one.filepath));
    ok(ctx, true);
  });

  return router;
}
