import Router from '@koa/router';
import { allAliases } from '../../storage/aliases.js';
import type { Engine } from '../../storage/engine/engine.js';
import { requireCollection } from '../../storage/engine/validate-event.js';
import type { AliasAction } from '../../storage/events/types.js';
import { checkBody } from '../../query/api/check-body.js';
import { bodyObject } from '../../query/api/fields.js';
import { aliasActionsBody } from '../../query/api/schemas/aliases.js';
import { ok } from '../state.js';

/** Qdrant's collection aliases: changed atomically as one logged operation, resolved on every collection path. */
export function aliasRoutes(engine: Engine): Router {
  const router = new Router();
  const listed = (list: { alias: string; collection: string }[]) => ({ aliases: list.map((a) => ({ alias_name: a.alias, collection_name: a.collection })) });

  router.post('/collections/aliases', async (ctx) => {
    const actions: AliasAction[] = checkBody(aliasActionsBody, bodyObject(ctx.request.body)).actions.map((a) =>
      'create_alias' in a
        ? { create: { alias: a.create_alias.alias_name, collection: a.create_alias.collection_name } }
        : 'delete_alias' in a
          ? { delete: { alias: a.delete_alias.alias_name } }
          : { rename: { from: a.rename_alias.old_alias_name, to: a.rename_alias.new_alias_name } },
    );
    const { result } = await engine.submit({ type: 'aliases', actions });
    if (result.error) throw result.error;
    ok(ctx, true);
  });

  router.get('/aliases', (ctx) => {
    ok(ctx, listed(allAliases(engine.collections)));
  });

  router.get('/collections/:name/aliases', (ctx) => {
    const c = requireCollection(engine.collections, ctx.params.name!);
    ok(ctx, listed(allAliases(engine.collections).filter((a) => a.collection === c.name)));
  });

  return router;
}
