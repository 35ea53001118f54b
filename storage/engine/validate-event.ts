import type { Collection } from '../collection.js';
import { badRequest, conflict, notFound } from '../errors.js';
import { DISTANCES, MULTIVECTOR_COMPARATORS, SPARSE_MODIFIERS, type CollectionConfig, type CollectionSettings, type DbEvent, type DenseVectorConfig, type EdgeRecord, type GraphWriteEvent, type ImportCollectionEvent, type Payload, type PointId, type PointRecord, type UpdatePointsEvent } from '../events/types.js';
import { configMismatch, deleteNameProblem, splitDense, vectorsProblem } from './check-vectors.js';
import { simulateUpdates } from './point-updates.js';
import { checkPointConstraints, hasNodeConstraints, type PointAfter } from './node-constraints.js';
import { checkAliases } from './apply-aliases.js';
import { canonicalUuid } from '../point-id.js';
import { resolveCollection } from '../aliases.js';
import { ShardedSet } from '../views/sharded.js';
import { checkOnDiskSettings } from '../views/on-disk-config.js';
import { MAX_QUANTIZED_DIMENSION, mergedSettings, quantizationOf } from '../views/quantization-config.js';
import { nestsDeeperThan, utf8Length } from './payload-shape.js';
import { DEFAULT_WRITE_LIMITS, LIMIT_VARIABLES, type WriteLimits } from './write-limits.js';
import { ImportCheck } from './import-check.js';
import { UPSERT_POINTS_A_STEP, type Sliced } from '../codec/slices.js';

export const MAX_POINT_ID = Number.MAX_SAFE_INTEGER;
/** The most named dense, sparse and multivectors a collection may have. */
export const MAX_VECTOR_NAMES = 64;
/**
 * The highest operation_id an imported file may say it was exported at: the import is logged
 * above it, and the ids after it must stay exact integers for centuries of writes.
 */
export const MAX_EXPORTED_AT = 2 ** 52;
const NAME_PATTERN = /^[A-Za-z0-9_\-][A-Za-z0-9_.\-]{0,254}$/;

export function checkCollectionName(name: string): void {
  if (!NAME_PATTERN.test(name)) {
    throw badRequest(`invalid collection name "${name.slice(0, 64)}": use 1 to 255 characters from A-Z a-z 0-9 _ - . not starting with "."`);
  }
}

/** An id as events carry it: an integer in range, or a UUID in its canonical form. */
export function checkPointId(id: unknown): asserts id is PointId {
  if (typeof id === 'string' && canonicalUuid(id) === id) return;
  if (typeof id !== 'number' || !Number.isInteger(id) || id < 0 || id > MAX_POINT_ID) {
    throw badRequest(`invalid point id ${JSON.stringify(id) ?? String(id)}: ids are integers from 0 to ${MAX_POINT_ID} or UUIDs`);
  }
}

/** The collection a name or alias means, or a 404. */
export function requireCollection(collections: ReadonlyMap<string, Collection>, name: string): Collection {
  const c = resolveCollection(collections, name);
  if (!c) throw notFound(`collection "${name}" not found`);
  return c;
}

/**
 * A payload (or edge properties) within the limits: an object, nested at most maxPayloadDepth
 * levels (checked first, so the JSON encoding that measures the size cannot overflow the stack),
 * and at most maxPayloadBytes as UTF-8 JSON.
 */
export function checkPayload(payload: unknown, what: string, limits: WriteLimits): asserts payload is Payload {
  if (payload === null || typeof payload !== 'object' || Array.isArray(payload)) throw badRequest(`${what} must be a JSON object`);
  if (nestsDeeperThan(payload, limits.maxPayloadDepth)) {
    throw badRequest(`${what} nests objects and arrays more than ${limits.maxPayloadDepth} levels deep, the limit (${LIMIT_VARIABLES.maxPayloadDepth})`);
  }
  const bytes = utf8Length(JSON.stringify(payload));
  if (bytes > limits.maxPayloadBytes) {
    throw badRequest(`${what} is ${bytes} bytes as JSON, more than the limit of ${limits.maxPayloadBytes} bytes (${LIMIT_VARIABLES.maxPayloadBytes})`);
  }
}

export function checkPoint(name: string, config: CollectionConfig, p: PointRecord, limits: WriteLimits): void {
  checkPointId(p.id);
  const problem = vectorsProblem(config, name, p.id, p);
  if (problem) throw badRequest(problem);
  checkPayload(p.payload, `point ${p.id}: payload`, limits);
  for (const label of p.labels) {
    if (typeof label !== 'string' || label.length === 0) throw badRequest(`point ${p.id}: labels must be non-empty strings`);
  }
}

function checkWeight(weight: number): void {
  if (typeof weight !== 'number' || !Number.isFinite(weight)) throw badRequest(`weight must be a finite number, got ${weight}`);
}

export function checkEdgeFields(e: EdgeRecord, limits: WriteLimits): void {
  if (typeof e.relation !== 'string' || e.relation.length === 0 || e.relation.length > 255) {
    throw badRequest('relation must be a non-empty string of at most 255 characters');
  }
  checkWeight(e.weight);
  if (e.properties !== undefined) checkPayload(e.properties, `the properties of an edge ${e.from} -> ${e.to}`, limits);
}

function checkRoomForCollection(collections: ReadonlyMap<string, Collection>, limits: WriteLimits): void {
  if (collections.size >= limits.maxCollections) {
    throw badRequest(`the database holds ${collections.size} collections, the limit (${LIMIT_VARIABLES.maxCollections}): delete one or raise the limit`);
  }
}

/** Refuses a write that would leave `name` holding more than maxPointsPerCollection points. */
export function checkRoomForPoints(name: string, total: number, limits: WriteLimits): void {
  if (total > limits.maxPointsPerCollection) {
    throw badRequest(`collection "${name}" would hold ${total} points, more than the limit of ${limits.maxPointsPerCollection} (${LIMIT_VARIABLES.maxPointsPerCollection})`);
  }
}

/** How many distinct ids of `ids` the collection does not hold yet (null: none, a new collection). */
function newIdCount(ids: Iterable<PointId>, target: Collection | null): number {
  const fresh = new ShardedSet<PointId>();
  for (const id of ids) if (!target?.store.has(id)) fresh.add(id);
  return fresh.size;
}

/** A config as the parsers make it; the unnamed vector's size may be 0 (none) when the collection names its vectors. */
export function checkConfig(c: CollectionConfig): void {
  const int = (v: number, lo: number, hi: number) => Number.isInteger(v) && v >= lo && v <= hi;
  const dense = (d: DenseVectorConfig, minSize: number) => int(d.size, minSize, 65536) && int(d.m, 2, 128) && int(d.m0, d.m, 512) && int(d.efConstruct, 4, 4096) && d.ml > 0 && d.ml <= 10 && DISTANCES.includes(d.distance);
  const named = Object.entries(c.named ?? {});
  const sparse = Object.entries(c.sparse ?? {});
  const multi = Object.entries(c.multi ?? {});
  const someNamed = named.length + sparse.length + multi.length > 0;
  const goodName = (name: string) => name.length >= 1 && name.length <= 255;
  const isObject = (v: unknown) => typeof v === 'object' && v !== null && !Array.isArray(v);
  const ok =
    dense(c, someNamed ? 0 : 1) &&
    named.every(([name, v]) => goodName(name) && dense(v, 1) && typeof v.onDisk === 'boolean') &&
    sparse.every(([name, v]) => goodName(name) && SPARSE_MODIFIERS.includes(v.modifier) && isObject(v.index) && !c.named?.[name]) &&
    multi.every(([name, v]) => (name === '' ? c.size === 0 : goodName(name)) && int(v.size, 1, 65536) && DISTANCES.includes(v.distance) && MULTIVECTOR_COMPARATORS.includes(v.comparator) && !c.named?.[name] && !c.sparse?.[name]) &&
    named.length + sparse.length + multi.length <= MAX_VECTOR_NAMES;
  if (!ok) throw badRequest(`invalid collection config: ${JSON.stringify(c)}`);
}

/** Settings a collection may hold: JSON within the limits, an on_disk for its own vectors, and a quantization_config it can serve. */
function checkSettings(config: CollectionConfig, settings: CollectionSettings, what: string, limits: WriteLimits): void {
  checkPayload(settings, what, limits);
  checkOnDiskSettings(config, settings);
  if (quantizationOf(settings)?.method !== 'scalar') return;
  const widest = Math.max(config.size, ...Object.values(config.named ?? {}).map((v) => v.size));
  if (widest > MAX_QUANTIZED_DIMENSION) throw badRequest(`quantization_config.scalar serves vectors of at most ${MAX_QUANTIZED_DIMENSION} dimensions; this collection has ${widest}`);
}

function checkImport(collections: ReadonlyMap<string, Collection>, event: ImportCollectionEvent, limits: WriteLimits): void {
  checkCollectionName(event.name);
  checkConfig(event.config);
  if (event.settings) checkSettings(event.config, event.settings, "the file's collection settings", limits);
  const exportedAt = event.exportedAt ?? 0;
  if (!Number.isSafeInteger(exportedAt) || exportedAt < 0 || exportedAt > MAX_EXPORTED_AT) {
    throw badRequest(`the file says it was exported at operation ${exportedAt}, above ${MAX_EXPORTED_AT}: operation_ids after it would run out of exact integers`);
  }
  const target = collections.get(event.name);
  if (event.mode === 'create' && target) throw conflict(`collection "${event.name}" already exists`);
  if (!target) checkRoomForCollection(collections, limits);
  const points = event.staged?.points ?? event.points.length;
  if (points > limits.maxPointsPerCollection) {
    throw badRequest(`the file holds ${points} points, more than the limit of ${limits.maxPointsPerCollection} per collection (${LIMIT_VARIABLES.maxPointsPerCollection})`);
  }
  const merged = event.mode === 'merge' ? checkMergeTarget(target, event) : null;
  // A streamed import's points and edges passed the same ImportCheck as they were staged.
  if (event.staged) return;
  const check = new ImportCheck(event.name, event.mode, event.config, merged, limits);
  check.points(event.points);
  check.edges(event.edges);
}

/** The collection a merge adds to: it exists, with the file's vectors (dimension, names). */
export function checkMergeTarget(target: Collection | undefined, event: Pick<ImportCollectionEvent, 'name' | 'config'>): Collection {
  if (!target) throw notFound(`collection "${event.name}" not found: merge needs an existing collection`);
  const mismatch = configMismatch(target.config, event.config, event.name);
  if (mismatch) throw badRequest(mismatch);
  return target;
}

function checkGraphWrite(c: Collection, event: GraphWriteEvent, limits: WriteLimits): void {
  const created: PointId[] = [];
  for (const change of event.changes) {
    if (change.kind === 'create_node' || change.kind === 'update_node') {
      checkPoint(c.name, c.config, change.point, limits);
      if (change.kind === 'create_node') created.push(change.point.id);
    } else if (change.kind === 'set_node') checkPoint(c.name, c.config, { id: change.id, vector: null, payload: change.payload, labels: change.labels }, limits);
    else if (change.kind === 'create_edge') {
      checkPointId(change.edge.from);
      checkPointId(change.edge.to);
      checkEdgeFields(change.edge, limits);
    } else if (change.kind === 'update_edge') {
      checkWeight(change.weight);
      checkPayload(change.properties, `the properties of edge ${change.id}`, limits);
    } else checkPointId(change.id);
  }
  if (created.length > 0) checkRoomForPoints(c.name, c.store.liveCount + newIdCount(created, c), limits);
}

/**
 * checkPoint of each point against collection `c`, yielding between steps: the checks of an
 * upsert that read no state (ids, vectors against the config, payloads and labels), run a slice
 * at a time on the request thread before it is submitted (Engine.submitInSlices).
 */
export function* checkPointsInSteps(c: Collection, points: readonly PointRecord[], limits: WriteLimits): Sliced {
  for (let i = 0; i < points.length; i++) {
    checkPoint(c.name, c.config, points[i]!, limits);
    if (i % UPSERT_POINTS_A_STEP === UPSERT_POINTS_A_STEP - 1) yield;
  }
}

/**
 * Checks an event against the current state and the limits before it is logged, so that what
 * reaches the log applies whole. Throws a DbError (4xx) naming what is wrong. `pointsChecked`:
 * the collection an upsert's points were checked against already (checkPointsInSteps); they are
 * checked again unless the collection is still that one.
 */
export function validateEvent(collections: ReadonlyMap<string, Collection>, event: DbEvent, limits: WriteLimits = DEFAULT_WRITE_LIMITS, pointsChecked: Collection | null = null): void {
  switch (event.type) {
    case 'create_collection':
      checkCollectionName(event.name);
      checkConfig(event.config);
      if (event.settings) checkSettings(event.config, event.settings, 'the settings', limits);
      if (collections.has(event.name)) throw conflict(`collection "${event.name}" already exists`);
      if (resolveCollection(collections, event.name)) throw conflict(`"${event.name}" is an alias; a collection cannot take its name`);
      checkRoomForCollection(collections, limits);
      return;
    case 'delete_collection':
      requireCollection(collections, event.name);
      return;
    case 'upsert_points': {
      const c = requireCollection(collections, event.collection);
      let unseen = 0;
      const checked = c === pointsChecked;
      for (const p of event.points) {
        if (!checked) checkPoint(c.name, c.config, p, limits);
        if (!c.store.has(p.id)) unseen++;
      }
      // Counting the request's repeated ids once matters only at the limit.
      if (c.store.liveCount + unseen > limits.maxPointsPerCollection) {
        checkRoomForPoints(c.name, c.store.liveCount + newIdCount(event.points.map((p) => p.id), c), limits);
      }
      if (c.store.usedSlots + event.points.length > c.store.maxSlots) {
        throw badRequest(`collection "${c.name}" is full: it holds at most ${c.store.maxSlots} vectors of dimension ${c.config.size}`);
      }
      if (hasNodeConstraints(c)) checkPointConstraints(c, new Map<PointId, PointAfter>(event.points.map((p) => [p.id, p])));
      return;
    }
    case 'delete_points':
      requireCollection(collections, event.collection);
      for (const id of event.ids) checkPointId(id);
      return;
    case 'upsert_edge': {
      const c = requireCollection(collections, event.collection);
      for (const id of [event.from, event.to]) {
        checkPointId(id);
        if (!c.store.has(id)) throw notFound(`point ${id} not found in collection "${c.name}"`);
      }
      checkEdgeFields(event, limits);
      return;
    }
    case 'import_collection':
      checkImport(collections, event, limits);
      return;
    case 'graph_write':
      checkGraphWrite(requireCollection(collections, event.collection), event, limits);
      return;
    case 'update_points':
      checkUpdates(requireCollection(collections, event.collection), event, limits);
      return;
    case 'aliases':
      checkAliases(collections, event);
      return;
    case 'collection_settings': {
      const c = requireCollection(collections, event.collection);
      checkPayload(event.settings, 'the settings', limits);
      checkSettings(c.config, mergedSettings(c.settings, event.settings as CollectionSettings), 'the settings', limits);
      return;
    }
    case 'payload_index':
      requireCollection(collections, event.collection);
      if (event.field.length === 0 || event.field.length > 1024) throw badRequest('field_name must be a payload key of 1 to 1,024 characters');
      if (event.index) checkPayload(event.index.params, 'field_schema options', limits);
      return;
  }
}

function checkUpdates(c: Collection, event: UpdatePointsEvent, limits: WriteLimits): void {
  let added = 0;
  for (const u of event.updates) {
    if (u.op === 'upsert') {
      for (const p of u.points) checkPoint(c.name, c.config, p, limits);
      added += u.points.length;
    } else if (u.op === 'update_vectors') {
      for (const p of u.points) {
        checkPointId(p.id);
        const problem = vectorsProblem(c.config, c.name, p.id, { ...splitDense(p.dense), sparse: p.sparse, multi: p.multi });
        if (problem) throw badRequest(problem);
      }
      added += u.points.length;
    } else {
      for (const id of u.ids) checkPointId(id);
      if (u.op === 'set_payload' || u.op === 'overwrite_payload') checkPayload(u.payload, `payload`, limits);
      if (u.op === 'delete_vectors') {
        added += u.ids.length;
        const problem = u.names.map((name) => deleteNameProblem(c.config, c.name, name)).find((m) => m !== null);
        if (problem) throw badRequest(problem);
      }
    }
  }
  const { error, touched } = simulateUpdates(c, event.updates);
  if (error) throw error;
  for (const [id, point] of touched) if (point) checkPayload(point.payload, `point ${id}: payload`, limits);
  checkPointConstraints(c, touched);
  const fresh = [...touched].filter(([id, point]) => point !== null && !c.store.has(id)).length;
  if (fresh > 0) checkRoomForPoints(c.name, c.store.liveCount + fresh, limits);
  // Each point given a new vector or none takes a new slot until the index lets the old one go.
  if (c.store.usedSlots + added > c.store.maxSlots) throw badRequest(`collection "${c.name}" is full: it holds at most ${c.store.maxSlots} vectors of dimension ${c.config.size}`);
}
