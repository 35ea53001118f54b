import { Collection } from '../collection.js';
import { conflict, notFound, type DbError } from '../errors.js';
import type { CollectionSettings, DbEvent, ImportCollectionEvent } from '../events/types.js';
import { mergedSettings } from '../views/quantization-config.js';
import { applyGraphWrite } from './apply-graph-write.js';
import { configMismatch, vectorsProblem } from './check-vectors.js';
import { applyUpdates, simulateUpdates } from './point-updates.js';
import { applyAliases } from './apply-aliases.js';
import { resolveCollection, touchAliases } from '../aliases.js';
import { importItems, importPointCount } from './import-chunks.js';
import { furnish } from './collection-map.js';

export interface ApplyResult {
  /** Set when the state no longer allowed the event (a concurrent change won the race): it was a no-op. */
  error?: DbError;
  /** How many things the event changed (points upserted or deleted, collections dropped). */
  changed: number;
  /** For an edge: whether it was new (false when an existing edge's weight was set). */
  created?: boolean;
  /** For an import: points added, and points left out because their id was present (merge). */
  imported?: number;
  skipped?: number;
}

/**
 * Create and replace build the new collection off to the side, yielding after each slice, and
 * put it in place in one step at the end: a reader sees the old state or the whole import.
 */
function* buildImported(collections: Map<string, Collection>, opId: number, event: ImportCollectionEvent): Generator<void, ApplyResult> {
  const c = new Collection(event.name, event.config, opId);
  c.settings = event.settings ?? {};
  // Floats on disk go to their file as the points come: the import never holds them in RAM.
  furnish(collections, c);
  // Declared first, so a text index fills as the points arrive.
  for (const [field, index] of Object.entries(event.indexes ?? {})) c.declareIndex(field, index);
  for (const points of importItems(event, 'points')) {
    // A file that repeats an id stores its last copy (upsert order); every other copy counts as skipped.
    c.upsert(points);
    yield;
  }
  // The file's parallel edges all come back.
  for (const edges of importItems(event, 'edges')) {
    for (const e of edges) c.graph.add(e.from, e.to, e.relation, e.weight, e.properties);
    yield;
  }
  collections.set(event.name, c);
  const imported = c.store.liveCount;
  return { changed: imported, imported, skipped: importPointCount(event) - imported };
}

/**
 * A merge changes the live collection a slice at a time (points, then edges), so a large one does
 * not hold the thread. Nothing else changes the state until it is done (the engine applies no
 * other entry meanwhile), and the server holds the requests that name the collection until it
 * is applied (server/middleware/applying-gate.ts): readers see it whole or not at all.
 */
function* mergeImported(c: Collection, event: ImportCollectionEvent): Generator<void, ApplyResult> {
  // The target's own index declarations win; the file's add those it lacks.
  for (const [field, index] of Object.entries(event.indexes ?? {})) if (!c.fieldIndexes.has(field)) c.declareIndex(field, index);
  // So do its settings: the file's fill in the groups and keys it lacks.
  const settings = { ...c.settings };
  for (const [group, values] of Object.entries(event.settings ?? {})) settings[group] = { ...values, ...settings[group] };
  c.settings = settings;
  const before = c.store.liveCount;
  // A point whose id is there (before the merge, or from earlier in the file) is skipped.
  for (const points of importItems(event, 'points')) {
    c.upsert(points.filter((p) => !c.store.has(p.id)));
    yield;
  }
  const imported = c.store.liveCount - before;
  // A merge leaves out an edge its target already has.
  for (const edges of importItems(event, 'edges')) {
    for (const e of edges) {
      if (!c.store.has(e.from) || !c.store.has(e.to) || c.graph.find(e.from, e.to, e.relation) >= 0) continue;
      c.graph.add(e.from, e.to, e.relation, e.weight, e.properties);
    }
    yield;
  }
  return { changed: imported, imported, skipped: importPointCount(event) - imported };
}

function* applyImport(collections: Map<string, Collection>, opId: number, event: ImportCollectionEvent): Generator<void, ApplyResult> {
  const c = collections.get(event.name);
  if (event.mode === 'create' && c) return { changed: 0, error: conflict(`collection "${event.name}" already exists`) };
  if (event.mode !== 'merge') return yield* buildImported(collections, opId, event);
  if (!c) return { changed: 0, error: notFound(`collection "${event.name}" not found`) };
  if (configMismatch(c.config, event.config, c.name)) return { changed: 0, error: dimensionChanged(c) };
  return yield* mergeImported(c, event);
}

/**
 * The one apply path, used live and at replay: deterministic in (state, opId, event), total
 * (never throws on a validated event), and all or nothing. It may yield between slices of a
 * large event (an import); the state it leaves readers between two steps is the state before.
 * Nothing else may change the state until it is done.
 */
export function* applyEventInSteps(collections: Map<string, Collection>, opId: number, event: DbEvent): Generator<void, ApplyResult> {
  if (event.type === 'import_collection') return aliasesTouched(yield* applyImport(collections, opId, event));
  return aliasesTouched(applySmallEvent(collections, opId, event));
}

/** Collections come and go: the alias index is rebuilt at its next use. */
function aliasesTouched(result: ApplyResult): ApplyResult {
  touchAliases();
  return result;
}

/** applyEventInSteps run to its end at once. */
export function applyEvent(collections: Map<string, Collection>, opId: number, event: DbEvent): ApplyResult {
  if (event.type === 'import_collection') return aliasesTouched(runToEnd(applyImport(collections, opId, event)));
  return aliasesTouched(applySmallEvent(collections, opId, event));
}

/**
 * The collection was dropped and made again with another dimension (or replaced by an import)
 * after this write was checked and before it applied: a no-op, as any lost race is.
 */
const dimensionChanged = (c: Collection): DbError =>
  conflict(`collection "${c.name}" changed while this write waited (its vectors now have ${c.config.size} dimensions); nothing was applied, send it again`);

function runToEnd<T>(steps: Generator<void, T>): T {
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

function applySmallEvent(collections: Map<string, Collection>, opId: number, event: Exclude<DbEvent, ImportCollectionEvent>): ApplyResult {
  switch (event.type) {
    case 'create_collection': {
      if (collections.has(event.name)) return { changed: 0, error: conflict(`collection "${event.name}" already exists`) };
      if (resolveCollection(collections, event.name)) return { changed: 0, error: conflict(`"${event.name}" is an alias; a collection cannot take its name`) };
      const created = new Collection(event.name, event.config, opId);
      if (event.settings) created.settings = event.settings;
      collections.set(event.name, created);
      return { changed: 1 };
    }
    case 'delete_collection':
      return { changed: collections.delete(event.name) ? 1 : 0 };
    case 'upsert_points': {
      const c = collections.get(event.collection);
      if (!c) return { changed: 0, error: notFound(`collection "${event.collection}" not found`) };
      // Validated when logged: only a collection made again with other vectors since fails it here.
      if (event.points.some((p) => vectorsProblem(c.config, c.name, p.id, p, false) !== null)) return { changed: 0, error: dimensionChanged(c) };
      c.upsert(event.points);
      return { changed: event.points.length };
    }
    case 'delete_points': {
      const c = collections.get(event.collection);
      if (!c) return { changed: 0, error: notFound(`collection "${event.collection}" not found`) };
      let changed = 0;
      for (const id of event.ids) if (c.remove(id)) changed++;
      return { changed };
    }
    case 'upsert_edge': {
      const c = collections.get(event.collection);
      if (!c) return { changed: 0, error: notFound(`collection "${event.collection}" not found`) };
      const missing = [event.from, event.to].find((id) => !c.store.has(id));
      if (missing !== undefined) return { changed: 0, error: notFound(`point ${missing} not found in collection "${c.name}"`) };
      const existing = c.graph.find(event.from, event.to, event.relation);
      if (existing >= 0) {
        c.graph.setWeight(existing, event.weight);
        return { changed: 1, created: false };
      }
      c.graph.add(event.from, event.to, event.relation, event.weight);
      return { changed: 1, created: true };
    }
    case 'graph_write': {
      const c = collections.get(event.collection);
      if (!c) return { changed: 0, error: notFound(`collection "${event.collection}" not found`) };
      return applyGraphWrite(c, event);
    }
    case 'aliases':
      return applyAliases(collections, event);
    case 'collection_settings': {
      const c = collections.get(event.collection);
      if (!c) return { changed: 0, error: notFound(`collection "${event.collection}" not found`) };
      c.settings = mergedSettings(c.settings, event.settings as CollectionSettings);
      return { changed: 1 };
    }
    case 'payload_index': {
      const c = collections.get(event.collection);
      if (!c) return { changed: 0, error: notFound(`collection "${event.collection}" not found`) };
      c.declareIndex(event.field, event.index);
      return { changed: 1 };
    }
    case 'update_points': {
      const c = collections.get(event.collection);
      if (!c) return { changed: 0, error: notFound(`collection "${event.collection}" not found`) };
      // Checked before it was logged; checked again as points may have changed since: all or nothing.
      const { error } = simulateUpdates(c, event.updates);
      if (error) return { changed: 0, error };
      return { changed: applyUpdates(c, event) };
    }
  }
}
