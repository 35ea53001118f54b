import type { Collection } from '../../storage/collection.js';
import type { CollectionConfig } from '../../storage/events/types.js';
import { reportedQuantization } from './quantization-settings.js';
import { defined, metadataOf, PARAMS_GROUP, VECTOR_PARAMS_GROUP } from './collection-settings.js';

/** Which shape to answer in: the spec port's (Qdrant's fields plus SPEC.md's) or exactly Qdrant's. */
export type InfoShape = 'spec' | 'qdrant';

/**
 * Qdrant's defaults (its config.yaml) for what this server has no such setting for; reported
 * until a collection is given its own value. Qdrant's OpenAPI marks most of them required.
 */
const QDRANT_DEFAULTS = {
  hnsw: { full_scan_threshold: 10_000, max_indexing_threads: 0, on_disk: false },
  optimizer: { deleted_threshold: 0.2, vacuum_min_vector_number: 1000, default_segment_number: 0, max_segment_size: null, memmap_threshold: null, indexing_threshold: 10_000, flush_interval_sec: 5, max_optimization_threads: null },
  wal: { wal_capacity_mb: 32, wal_segments_ahead: 0, wal_retain_closed: 1 },
  // on_disk_payload false, unlike Qdrant's default: payloads are held in RAM here (README, Collection settings).
  params: { shard_number: 1, replication_factor: 1, write_consistency_factor: 1, on_disk_payload: false },
  strictMode: { enabled: false },
};

/** A vector's HNSW fields as Qdrant reports them: its HnswConfigDiff has no m0 or ml. */
const withoutShape = (hnsw: Record<string, unknown>, shape: InfoShape) => (shape === 'qdrant' ? Object.fromEntries(Object.entries(hnsw).filter(([key]) => key !== 'm0' && key !== 'ml')) : hnsw);

/** Qdrant's payload_schema: each declared index with its type, options and how many points have the field (while the index is being built, those it has passed). */
function payloadSchema(c: Collection): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [field, index] of c.fieldIndexes) {
    // Counted as payloads change (reading every payload here took 35-42 ms a call at 200,000 points).
    const points = c.payloadIndex.holders(field);
    out[field] = Object.keys(index.params).length > 0 ? { data_type: index.type, params: { type: index.type, ...index.params }, points } : { data_type: index.type, points };
  }
  return out;
}

/**
 * Qdrant's vectors config: {size, distance} for a collection with one unnamed vector, else an
 * object from names to each vector's ("" for the unnamed one), with its own hnsw_config and
 * datatype as given (or, for a collection made before they were kept, HNSW settings where they
 * differ from the collection's) and on_disk when set.
 */
function vectorsConfig(c: Collection, shape: InfoShape): Record<string, unknown> {
  const { config } = c;
  const given = (c.settings[VECTOR_PARAMS_GROUP] ?? {}) as Record<string, { hnsw_config?: Record<string, unknown>; datatype?: string }>;
  const paramsOf = (name: string, size: number, distance: string, hnswDiff: Record<string, unknown> | undefined) => {
    const own = given[name];
    const hnsw = own?.hnsw_config ?? hnswDiff;
    return defined({
      size,
      distance,
      hnsw_config: hnsw ? withoutShape(hnsw, shape) : undefined,
      on_disk: c.onDisk(name) ? true : undefined,
      datatype: own?.datatype,
    });
  };
  const multiParams = (name: string) => {
    const v = config.multi![name]!;
    return { ...paramsOf(name, v.size, v.distance, undefined), multivector_config: { comparator: v.comparator } };
  };
  const multiNames = Object.keys(config.multi ?? {});
  const unnamed = config.size === 0 && config.multi?.[''] ? multiParams('') : paramsOf('', config.size, config.distance, undefined);
  if (!config.named && !config.sparse && (multiNames.length === 0 || (multiNames.length === 1 && multiNames[0] === ''))) return unnamed;
  const out: Record<string, unknown> = config.size > 0 || config.multi?.[''] ? { '': unnamed } : {};
  for (const [name, v] of Object.entries(config.named ?? {})) {
    const differs = v.m !== config.m || v.efConstruct !== config.efConstruct || v.m0 !== config.m0 || v.ml !== config.ml;
    out[name] = paramsOf(name, v.size, v.distance, differs ? { m: v.m, ef_construct: v.efConstruct, m0: v.m0, ml: v.ml } : undefined);
  }
  for (const name of multiNames) if (name !== '') out[name] = multiParams(name);
  return out;
}

/** Qdrant's sparse_vectors config: each with its modifier (when idf) and index options (when given). */
function sparseConfig(config: CollectionConfig): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, v] of Object.entries(config.sparse ?? {})) {
    const params: Record<string, unknown> = {};
    if (Object.keys(v.index).length > 0) params.index = v.index;
    if (v.modifier === 'idf') params.modifier = 'idf';
    out[name] = params;
  }
  return out;
}

/** Vectors linked into an HNSW graph (every dense vector's) or into an inverted index (every sparse vector). */
function indexedVectors(c: Collection): number {
  let n = c.index.nodeCount - c.index.removedCount;
  for (const field of c.named.values()) n += field.index.nodeCount - field.index.removedCount;
  for (const field of c.sparse.values()) n += field.size;
  return n;
}

/**
 * Collection info as the REST API answers it: every field Qdrant's OpenAPI marks required, with
 * the collection's settings over Qdrant's defaults. The spec port adds SPEC.md's name,
 * vectors_count, config.vectors and the graph's m0 and ml; the Qdrant port answers exactly
 * Qdrant's shape (strict clients refuse fields their models do not have).
 */
export function collectionInfo(c: Collection, shape: InfoShape = 'spec'): Record<string, unknown> {
  const { config, settings } = c;
  const vectors = vectorsConfig(c, shape);
  const sparse = config.sparse ? { sparse_vectors: sparseConfig(config) } : {};
  // The Qdrant port reports the collection's own m and ef_construct where the unnamed vector has others (kept in the settings on create).
  const graph = shape === 'spec' ? { m: config.m, ef_construct: config.efConstruct, m0: config.m0, ml: config.ml } : { m: settings.hnsw_config?.m ?? config.m, ef_construct: settings.hnsw_config?.ef_construct ?? config.efConstruct };
  const optimizer: Record<string, unknown> = { ...QDRANT_DEFAULTS.optimizer, ...settings.optimizer_config };
  // "auto" is how a request says "no limit", which Qdrant reports as null.
  if (optimizer.max_optimization_threads === 'auto') optimizer.max_optimization_threads = null;
  const metadata = metadataOf(settings);
  const info = {
    status: c.pendingCount > 0 || c.optimizing ? 'yellow' : 'green',
    optimizer_status: 'ok',
    indexed_vectors_count: indexedVectors(c),
    points_count: c.store.liveCount,
    segments_count: 1,
    config: {
      params: { vectors, ...sparse, ...QDRANT_DEFAULTS.params, ...settings[PARAMS_GROUP] },
      hnsw_config: { ...QDRANT_DEFAULTS.hnsw, ...settings.hnsw_config, ...graph },
      optimizer_config: optimizer,
      wal_config: { ...QDRANT_DEFAULTS.wal, ...settings.wal_config },
      quantization_config: reportedQuantization(settings),
      strict_mode_config: { ...QDRANT_DEFAULTS.strictMode, ...settings.strict_mode_config },
      ...(metadata ? { metadata } : {}),
    },
    payload_schema: payloadSchema(c),
  };
  if (shape === 'qdrant') return info;
  return { name: c.name, vectors_count: c.store.liveCount, ...info, config: { vectors, ...info.config } };
}
