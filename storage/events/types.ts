import type { PointId } from '../point-id.js';

export type { PointId } from '../point-id.js';

/** The mutations the database records. Each is one log entry and applies all or nothing. */
export type Distance = 'Cosine' | 'Euclid' | 'Dot' | 'Manhattan';
/** In the order of their codes in the log, snapshots and exports (codec.ts): a new distance goes last. */
export const DISTANCES: readonly Distance[] = ['Cosine', 'Euclid', 'Dot', 'Manhattan'];

/** One dense vector's shape and HNSW settings. */
export interface DenseVectorConfig {
  size: number;
  distance: Distance;
  m: number;
  m0: number;
  efConstruct: number;
  ml: number;
}

/**
 * A collection's vectors: the fields of DenseVectorConfig describe its unnamed vector (named "";
 * size 0 when it has none), `named` its other dense vectors, `sparse` its sparse vectors and
 * `multi` its multivectors ("" among them when the unnamed vector is one).
 */
export interface CollectionConfig extends DenseVectorConfig {
  named?: Record<string, NamedVectorConfig>;
  sparse?: Record<string, SparseVectorConfig>;
  multi?: Record<string, MultiVectorConfig>;
}

/** A named dense vector: its own HNSW index; `onDisk` is Qdrant's on_disk, kept and reported. */
export interface NamedVectorConfig extends DenseVectorConfig {
  onDisk: boolean;
}

export const SPARSE_MODIFIERS = ['none', 'idf'] as const;
export type SparseModifier = (typeof SPARSE_MODIFIERS)[number];

/** A sparse vector: `idf` weighs each query dimension by its inverse document frequency; `index` is Qdrant's index options, kept and reported. */
export interface SparseVectorConfig {
  modifier: SparseModifier;
  index: Record<string, unknown>;
}

export const MULTIVECTOR_COMPARATORS = ['max_sim'] as const;
export type MultiVectorComparator = (typeof MULTIVECTOR_COMPARATORS)[number];

/** A multivector (Qdrant's multivector_config): each point holds a matrix of rows of `size` floats, scored against a query matrix by `comparator`. */
export interface MultiVectorConfig {
  size: number;
  distance: Distance;
  comparator: MultiVectorComparator;
}

/** A multivector's matrix: `values.length / dim` rows of `dim` floats, one after the other. */
export interface MultiVector {
  dim: number;
  values: Float32Array;
}

/** A sparse vector: strictly increasing dimension indices and their values. */
export interface SparseVector {
  indices: Uint32Array;
  values: Float32Array;
}

export type Payload = Record<string, unknown>;

export interface PointRecord {
  id: PointId;
  /** Null for a node without a vector (such a point is never a search result). */
  vector: Float32Array | null;
  payload: Payload;
  labels: string[];
  /** Its named dense vectors (absent or missing a name: it has none of that name). */
  named?: Record<string, Float32Array>;
  /** Its sparse vectors, by name. */
  sparse?: Record<string, SparseVector>;
  /** Its multivectors, by name ("" the unnamed vector when the collection's is a multivector). */
  multi?: Record<string, MultiVector>;
}

/** A point's new vectors for update_vectors: only the names given change ("" is the unnamed vector). */
export interface VectorUpdate {
  id: PointId;
  dense: Record<string, Float32Array>;
  sparse: Record<string, SparseVector>;
  multi?: Record<string, MultiVector>;
}

export interface CreateCollectionEvent {
  type: 'create_collection';
  name: string;
  config: CollectionConfig;
  /** Settings the collection starts with (Qdrant's quantization_config given on create); absent: none. */
  settings?: CollectionSettings;
}

export interface DeleteCollectionEvent {
  type: 'delete_collection';
  name: string;
}

export interface UpsertPointsEvent {
  type: 'upsert_points';
  collection: string;
  points: PointRecord[];
}

export interface DeletePointsEvent {
  type: 'delete_points';
  collection: string;
  ids: PointId[];
}

export interface EdgeRecord {
  from: PointId;
  to: PointId;
  relation: string;
  weight: number;
  /** Relationship properties other than the weight (absent: none). */
  properties?: Payload;
}

/** Adds the edge from → to with this relation, or sets its weight when one exists already. */
export interface UpsertEdgeEvent extends EdgeRecord {
  type: 'upsert_edge';
  collection: string;
}

export type ImportMode = 'create' | 'replace' | 'merge';

/** A whole export file applied as one operation (create, replace or merge). */
export interface ImportCollectionEvent {
  type: 'import_collection';
  name: string;
  mode: ImportMode;
  config: CollectionConfig;
  points: PointRecord[];
  edges: EdgeRecord[];
  /** The file's declared payload indexes (files before format 4 have none). */
  indexes?: Record<string, FieldIndex>;
  /** The file's collection settings (files before format 5 have none). */
  settings?: CollectionSettings;
  /** The operation_id the file was exported at (0 or absent: files before format 5 do not say); the import's own id is above it. */
  exportedAt?: number;
  /**
   * A streamed import: its points and edges are not in the event (points and edges are empty)
   * but in the file's own blocks, staged beside the log entry (storage/log/import-stage.ts).
   */
  staged?: StagedContent;
}

/** Where a streamed import's points and edges are: the file's POINTS and EDGES blocks, as framed in it. */
export interface StagedContent {
  /** The stage that holds the blocks. */
  stage: number;
  blocks: number;
  points: number;
  edges: number;
  /** The log entry format the blocks' points and edges are encoded in (the file's). */
  version: number;
  /** SHA-256 over the framed blocks in order: the entry's chain hash covers them through it. */
  digest: Uint8Array;
  /** Reads the framed blocks back in order, checking each one and the digest; set by the log that holds them. */
  read?: () => Iterable<Uint8Array>;
  /** Holds the blocks open until close() for several passes over them (read as above), however the log changes meanwhile. */
  open?: () => { read(): Iterable<Uint8Array>; close(): void };
}

/** A collection's settings by group (Qdrant's optimizers_config and HNSW extras, Cypher's schema), kept as given. */
export type CollectionSettings = Record<string, Record<string, unknown>>;

/** Written by name in the log, so a type added here leaves older entries as they read. */
export const FIELD_INDEX_TYPES = ['keyword', 'integer', 'float', 'bool', 'uuid', 'datetime', 'text', 'geo'] as const;
export type FieldIndexType = (typeof FIELD_INDEX_TYPES)[number];

/** A declared payload index on a field (Qdrant's field_schema): its type and the options given with it. */
export interface FieldIndex {
  type: FieldIndexType;
  params: Record<string, unknown>;
}

/** Qdrant's alias actions, applied in order as one operation. */
export type AliasAction = { create: { alias: string; collection: string } } | { delete: { alias: string } } | { rename: { from: string; to: string } };

export interface AliasEvent {
  type: 'aliases';
  actions: AliasAction[];
}

/** Qdrant's collection settings beyond the index config: kept and reported (PATCH /collections/{name}). */
export interface CollectionSettingsEvent {
  type: 'collection_settings';
  collection: string;
  /** Merged over the settings the collection has (JSON objects: optimizers_config, hnsw extras). */
  settings: Payload;
}

/** Declares (or, with null, drops) the payload index of one field. */
export interface PayloadIndexEvent {
  type: 'payload_index';
  collection: string;
  field: string;
  index: FieldIndex | null;
}

/**
 * One primitive change made by a Cypher write. Ids are chosen by the writer (new node ids from
 * the collection's counter, new edge ids from nextEdgeId), so the query's answer names them.
 */
export type GraphChange =
  | { kind: 'create_node'; point: PointRecord }
  /** Replaces a node's vector, payload and labels; its edges stay. */
  | { kind: 'update_node'; point: PointRecord }
  /** Replaces a node's payload and labels; its vector (and place in the index) and edges stay. */
  | { kind: 'set_node'; id: PointId; payload: Payload; labels: string[] }
  /** Deletes a node and its incident edges. */
  | { kind: 'delete_node'; id: PointId }
  | { kind: 'create_edge'; id: number; edge: EdgeRecord }
  /** Replaces an edge's weight and other properties. */
  | { kind: 'update_edge'; id: number; weight: number; properties: Payload }
  | { kind: 'delete_edge'; id: number };

/** The changes of one Cypher write query, applied all or nothing. */
export interface GraphWriteEvent {
  type: 'graph_write';
  collection: string;
  changes: GraphChange[];
}

/** One step of Qdrant's point updates; payloads are replaced, never changed in place. */
export type PointUpdate =
  | { op: 'upsert'; points: PointRecord[] }
  | { op: 'delete'; ids: PointId[] }
  /**
   * Merges the payload's keys into each point's payload, or into the object at `key` (Qdrant's
   * JSON path, storage/json-path.ts; `dottedKeys`: an entry logged before paths, whose key is
   * read as it was then, storage/engine/payload-paths.ts).
   */
  | { op: 'set_payload'; ids: PointId[]; payload: Payload; key: string | null; dottedKeys?: true }
  | { op: 'overwrite_payload'; ids: PointId[]; payload: Payload }
  /** Removes what each key (Qdrant's JSON path; `dottedKeys` as for set_payload) names from each point's payload. */
  | { op: 'delete_payload'; ids: PointId[]; keys: string[]; dottedKeys?: true }
  | { op: 'clear_payload'; ids: PointId[] }
  | { op: 'update_vectors'; points: VectorUpdate[] }
  /** Removes the vectors of these names ("" is the unnamed vector) from each point. */
  | { op: 'delete_vectors'; ids: PointId[]; names: string[] };

/** Qdrant's point updates (payload, vectors, or a batch of them), applied in order, all or nothing. */
export interface UpdatePointsEvent {
  type: 'update_points';
  collection: string;
  updates: PointUpdate[];
}

export type DbEvent = CreateCollectionEvent | DeleteCollectionEvent | UpsertPointsEvent | DeletePointsEvent | UpsertEdgeEvent | ImportCollectionEvent | GraphWriteEvent | UpdatePointsEvent | PayloadIndexEvent | AliasEvent | CollectionSettingsEvent;
