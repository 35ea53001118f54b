import type { Collection } from './collection.js';

/**
 * Collection aliases (Qdrant's): each collection keeps the aliases that point at it, so they live
 * and die with it and travel in its snapshot. Lookups by alias go through an index rebuilt when
 * the set of collections or of aliases has changed (`touch`), at most once per change.
 */
let version = 0;
const built = new WeakMap<ReadonlyMap<string, Collection>, { version: number; byAlias: Map<string, Collection> }>();

/** Marks the alias index stale: an alias or a collection was added or removed. */
export function touchAliases(): void {
  version++;
}

function indexOf(collections: ReadonlyMap<string, Collection>): Map<string, Collection> {
  const cached = built.get(collections);
  if (cached && cached.version === version) return cached.byAlias;
  const byAlias = new Map<string, Collection>();
  for (const c of collections.values()) for (const alias of c.aliases) byAlias.set(alias, c);
  built.set(collections, { version, byAlias });
  return byAlias;
}

/** The collection a name means: the collection of that name, else the one the alias points at. */
export function resolveCollection(collections: ReadonlyMap<string, Collection>, name: string): Collection | undefined {
  return collections.get(name) ?? indexOf(collections).get(name);
}

/** Every alias, sorted, with its collection. */
export function allAliases(collections: ReadonlyMap<string, Collection>): { alias: string; collection: string }[] {
  return [...indexOf(collections)].map(([alias, c]) => ({ alias, collection: c.name })).sort((a, b) => (a.alias < b.alias ? -1 : 1));
}

/** An event that names a collection by an alias, renamed to the collection: the log holds real names. */
export function throughAliases<E extends object>(collections: ReadonlyMap<string, Collection>, event: E): E {
  const named = event as { collection?: unknown };
  if (typeof named.collection !== 'string' || collections.has(named.collection)) return event;
  const c = indexOf(collections).get(named.collection);
  return c ? { ...event, collection: c.name } : event;
}
