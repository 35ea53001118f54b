import { touchAliases } from '../aliases.js';
import type { Collection } from '../collection.js';
import { badRequest, conflict, notFound, type DbError } from '../errors.js';
import type { AliasAction, AliasEvent } from '../events/types.js';
import { checkCollectionName } from './validate-event.js';

/**
 * Plays alias actions over the current aliases: the alias → collection map they leave, or the
 * first reason they cannot apply. Creating an existing alias points it elsewhere (Qdrant's
 * behaviour); an alias may not be a collection's name. Validation and apply both run it.
 */
export function planAliases(collections: ReadonlyMap<string, Collection>, actions: readonly AliasAction[]): { error: DbError | null; aliases: Map<string, string> } {
  const aliases = new Map<string, string>();
  for (const c of collections.values()) for (const a of c.aliases) aliases.set(a, c.name);
  const free = (alias: string): DbError | null => {
    try {
      checkCollectionName(alias);
    } catch (err) {
      return err as DbError;
    }
    return collections.has(alias) ? conflict(`"${alias}" is the name of a collection; an alias cannot take it`) : null;
  };
  for (const action of actions) {
    if ('create' in action) {
      const { alias, collection } = action.create;
      if (!collections.has(collection)) return { error: notFound(`collection "${collection}" not found`), aliases };
      const e = free(alias);
      if (e) return { error: e, aliases };
      aliases.set(alias, collection);
    } else if ('delete' in action) {
      if (!aliases.delete(action.delete.alias)) return { error: notFound(`alias "${action.delete.alias}" not found`), aliases };
    } else {
      const { from, to } = action.rename;
      const target = aliases.get(from);
      if (target === undefined) return { error: notFound(`alias "${from}" not found`), aliases };
      const e = free(to);
      if (e) return { error: e, aliases };
      aliases.delete(from);
      aliases.set(to, target);
    }
  }
  return { error: null, aliases };
}

export function checkAliases(collections: ReadonlyMap<string, Collection>, event: AliasEvent): void {
  if (event.actions.length === 0) throw badRequest('actions must name at least one alias action');
  const { error } = planAliases(collections, event.actions);
  if (error) throw error;
}

export function applyAliases(collections: ReadonlyMap<string, Collection>, event: AliasEvent): { changed: number; error?: DbError } {
  const { error, aliases } = planAliases(collections, event.actions);
  if (error) return { changed: 0, error };
  for (const c of collections.values()) c.aliases.clear();
  for (const [alias, name] of aliases) collections.get(name)!.aliases.add(alias);
  touchAliases();
  return { changed: event.actions.length };
}
