import { joinChunks } from '../storage/codec/join-chunks.js';
import type { Collection } from '../storage/collection.js';
import { Engine } from '../storage/engine/engine.js';
import { checkCollectionName, MAX_POINT_ID, requireCollection } from '../storage/engine/validate-event.js';
import { badRequest } from '../storage/errors.js';
import type { DbEvent, ImportMode } from '../storage/events/types.js';
import { exportCollection } from '../storage/export/export-writer.js';
import { ImportReader } from '../storage/export/import-reader.js';
import { MemoryLog } from '../storage/log/memory-log.js';
import { canonicalUuid, type PointId } from '../storage/point-id.js';
import { precompileKernels } from '../storage/views/simd-kernels.js';
import { collectionInfo } from '../query/api/collection-info.js';
import { parseCreateCollection } from '../query/api/collection-body.js';
import { cypherJson, traverseJson } from '../query/api/graph-json.js';
import { parseEdgeBody, parseGraphQueryBody, parseTraverseBody } from '../query/api/graph-body.js';
import { retrievedJson, scoredJson } from '../query/api/point-json.js';
import { parseUpsertBody } from '../query/api/points-body.js';
import { parseSearchBody } from '../query/api/search-body.js';
import { importEvent, importResultJson, parseImportMode, readingImport } from '../query/api/transfer.js';
import { compileQuery, executeQuery } from '../query/cypher/run-query.js';

/** A sparse vector: dimension indices and their values. */
export interface SparseVectorInput {
  indices: number[];
  values: number[];
}

/**
 * A point to upsert: the id as a number, bigint or UUID string, the vector as a Float32Array,
 * or its vectors by name (dense ones as arrays, sparse ones as {indices, values}).
 */
export interface PointInput {
  id: PointIdInput;
  vector: Float32Array | number[] | Record<string, Float32Array | number[] | SparseVectorInput>;
  payload?: Record<string, unknown>;
  labels?: string[];
}

/** Search options, as the HTTP search body names them. */
export interface SearchOptions {
  with_payload?: boolean | string[] | { include: string[] } | { exclude: string[] };
  with_vector?: boolean | string[];
  /** The vector to search: a named dense or sparse vector ("" or absent: the unnamed one). */
  using?: string;
  score_threshold?: number;
  filter?: Record<string, unknown>;
  ef?: number;
  offset?: number;
  /** Qdrant's search params: hnsw_ef, and quantization (see the README's quantization section). */
  params?: { hnsw_ef?: number; quantization?: { ignore?: boolean; rescore?: boolean; oversampling?: number } };
}

interface VectorParamsInput {
  size: number;
  distance: 'Cosine' | 'Euclid' | 'Dot' | 'Manhattan' | string;
}

/** The Create Collection body: one unnamed vector, or named dense vectors, and sparse vectors. */
export interface CollectionConfigInput {
  vectors?: VectorParamsInput | Record<string, VectorParamsInput & { hnsw_config?: { m?: number; ef_construct?: number; m0?: number; ml?: number }; on_disk?: boolean }>;
  sparse_vectors?: Record<string, { index?: { on_disk?: boolean; full_scan_threshold?: number }; modifier?: 'none' | 'idf' }>;
  hnsw_config?: { m: number; ef_construct: number; m0?: number; ml?: number };
  quantization_config?: { scalar?: { type: 'int8'; quantile?: number; always_ram?: boolean } | null; binary?: { always_ram?: boolean } | null };
}

/** An id as the library takes it: a number, a bigint, or a UUID string (the HTTP API's checks apply to each). */
export type PointIdInput = number | bigint | string;

function pointId(id: PointIdInput, where: string): PointId {
  if (typeof id === 'bigint') {
    if (id < 0n || id > BigInt(MAX_POINT_ID)) throw badRequest(`${where}: invalid point id ${id}: ids are integers from 0 to ${MAX_POINT_ID} or UUIDs`);
    return Number(id);
  }
  if (typeof id !== 'string') return id;
  const uuid = canonicalUuid(id);
  if (uuid === null) throw badRequest(`${where}: invalid point id ${JSON.stringify(id.slice(0, 40))}: ids are integers from 0 to ${MAX_POINT_ID} or UUIDs`);
  return uuid;
}

function idList(ids: BigUint64Array | readonly PointIdInput[], where: string): PointId[] {
  return Array.from(ids as ArrayLike<PointIdInput>, (id, i) => pointId(id, `${where}[${i}]`));
}

/**
 * The database in a browser tab: the server's engine (the same validation, views, search,
 * graph, Cypher and file format) over a log kept in memory, so every call is synchronous and
 * everything is gone when the page goes. Each call answers what the HTTP API puts in `result`,
 * and throws the HTTP API's errors: an Error with the same message and its status in `code`.
 *
 *   const db = await VectorGraphDB.init();
 *   db.createCollection('docs', { vectors: { size: 3, distance: 'Cosine' } });
 */
export class VectorGraphDB {
  private constructor(private readonly engine: Engine) {}

  /** Compiles the WebAssembly SIMD distance kernels (rejects where SIMD is unavailable). */
  static async init(): Promise<VectorGraphDB> {
    await precompileKernels();
    const engine = new Engine(new MemoryLog());
    engine.replay();
    return new VectorGraphDB(engine);
  }

  private commit(event: DbEvent): { operation_id: number; status: 'completed' } {
    const { opId, result } = this.engine.submitSync(event);
    if (result.error) throw result.error;
    return { operation_id: opId, status: 'completed' };
  }

  private collection(name: string): Collection {
    return requireCollection(this.engine.collections, name);
  }

  createCollection(name: string, config: CollectionConfigInput): true {
    const { config: parsed, settings } = parseCreateCollection(config);
    this.commit({ type: 'create_collection', name, config: parsed, ...(Object.keys(settings).length > 0 ? { settings } : {}) });
    return true;
  }

  listCollections(): { collections: { name: string }[] } {
    return { collections: [...this.engine.collections.keys()].sort().map((name) => ({ name })) };
  }

  getCollection(name: string): Record<string, unknown> {
    return collectionInfo(this.collection(name));
  }

  deleteCollection(name: string): true {
    this.commit({ type: 'delete_collection', name });
    return true;
  }

  upsert(name: string, points: readonly PointInput[]): { operation_id: number; status: 'completed' } {
    this.collection(name);
    const body = { points: points.map((p, i) => ({ ...p, id: pointId(p.id, `points[${i}].id`) })) };
    return this.commit({ type: 'upsert_points', collection: name, points: parseUpsertBody(body) });
  }

  /** Nearest points to a vector (a sparse one for a sparse vector named by `options.using`). */
  search(name: string, vector: Float32Array | number[] | SparseVectorInput, limit = 10, options: SearchOptions = {}): Record<string, unknown>[] {
    const c = this.collection(name);
    const { using, ...rest } = options;
    return scoredJson(c, parseSearchBody({ ...rest, vector: using ? { name: using, vector } : vector, limit }));
  }

  getPoints(name: string, ids: BigUint64Array | readonly PointIdInput[], withPayload = true, withVector: boolean | string[] = false): Record<string, unknown>[] {
    const c = this.collection(name);
    return retrievedJson(c, idList(ids, 'ids'), { withPayload, withVector });
  }

  deletePoints(name: string, ids: BigUint64Array | readonly PointIdInput[]): { operation_id: number; status: 'completed' } {
    this.collection(name);
    return this.commit({ type: 'delete_points', collection: name, ids: idList(ids, 'points') });
  }

  /** Adds the edge source → target (or sets its weight when it exists): `{created}`. */
  addEdge(name: string, source: PointIdInput, target: PointIdInput, relation: string, weight = 1): { created: boolean } {
    this.collection(name);
    const edge = parseEdgeBody({ from_id: pointId(source, 'source'), to_id: pointId(target, 'target'), relation, weight });
    const { result } = this.engine.submitSync({ type: 'upsert_edge', collection: name, ...edge });
    if (result.error) throw result.error;
    return { created: result.created === true };
  }

  traverse(name: string, start: PointIdInput, depth: number, relations: string[] | null = null): Record<string, unknown> {
    const c = this.collection(name);
    return traverseJson(c, parseTraverseBody({ start_id: pointId(start, 'start'), max_depth: depth, relations }));
  }

  /** Runs a Cypher query: `{columns, rows, stats}`; a write applies all or nothing. */
  query(name: string, cypher: string, parameters: Record<string, unknown> = {}): Record<string, unknown> {
    const started = performance.now();
    const req = parseGraphQueryBody({ query: cypher, parameters });
    const compiled = compileQuery(req.query);
    const c = this.collection(name);
    const result = executeQuery(c, compiled, req.parameters);
    if (result.changes.length > 0) this.commit({ type: 'graph_write', collection: c.name, changes: result.changes });
    return cypherJson(result, started);
  }

  /** The collection as an export file (the server's format): import it there, or here. */
  exportCollection(name: string): Uint8Array {
    return joinChunks([...exportCollection(this.collection(name), this.engine.log.lastOperationId).chunks()]);
  }

  /** Imports an export file: mode `create` (default), `replace` or `merge`, as the server does. */
  importCollection(name: string, file: Uint8Array, mode: ImportMode = 'create'): Record<string, unknown> {
    const checked = parseImportMode(mode);
    checkCollectionName(name);
    const reader = new ImportReader();
    const parsed = readingImport(() => {
      reader.feed(file);
      return reader.finish();
    });
    const { opId, result } = this.engine.submitSync(importEvent(name, checked, parsed));
    return importResultJson(this.engine, name, checked, opId, result);
  }

  /** Links every point still waiting into the HNSW index now (searches are exact either way). */
  flushIndex(): void {
    this.engine.flushIndex();
  }
}
