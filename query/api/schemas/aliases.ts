import * as z from 'zod';

const name = z.string().min(1).max(255).meta({ description: 'a collection or alias name' });

const action = z
  .union([
    z.strictObject({ create_alias: z.strictObject({ collection_name: name, alias_name: name }) }),
    z.strictObject({ delete_alias: z.strictObject({ alias_name: name }) }),
    z.strictObject({ rename_alias: z.strictObject({ old_alias_name: name, new_alias_name: name }) }),
  ])
  .meta({ description: 'one of {create_alias: {collection_name, alias_name}}, {delete_alias: {alias_name}}, {rename_alias: {old_alias_name, new_alias_name}}' });

export const aliasActionsBody = z
  .strictObject({ actions: z.array(action).min(1).max(1000).meta({ description: 'a non-empty array of alias actions, applied in order as one' }) })
  .meta({ id: 'AliasActionsBody' });
