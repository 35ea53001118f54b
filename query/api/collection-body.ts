import type * as z from 'zod';
import { badRequest } from '../../storage/errors.js';
import { MAX_VECTOR_NAMES } from '../../storage/engine/validate-event.js';
import { DISTANCES, type CollectionConfig, type CollectionSettings, type DenseVectorConfig, type Distance } from '../../storage/events/types.js';
import { checkBody } from './check-body.js';
import { VECTORS_GROUP } from '../../storage/views/on-disk-config.js';
import { quantizationSettings } from './quantization-settings.js';
import { bodyObject, isObject } from './fields.js';
import { MAX_M0, namedVectorsCollectionBody, oneVectorCollectionBody } from './schemas/collection.js';
import { defined, hnswExtras, METADATA_GROUP, settingsOf, VECTOR_PARAMS_GROUP } from './collection-settings.js';

export const DEFAULT_HNSW = { m: 16, efConstruct: 200 } as const;
const MAX_VECTOR_NAME = 255;

interface HnswGiven {
  m?: number | null;
  ef_construct?: number | null;
  m0?: number | null;
  ml?: number | null;
  [extra: string]: unknown;
}

const distanceOf = (raw: string): Distance => DISTANCES.find((d) => d.toLowerCase() === raw.toLowerCase())!;

/** HNSW settings: those given over those of `base` (m0 and ml follow m unless given). */
function hnswOf(given: HnswGiven | null | undefined, base: { m: number; efConstruct: number; m0?: number; ml?: number }, where: string): Omit<DenseVectorConfig, 'size' | 'distance'> {
  if (given?.m !== undefined && given.m !== null && given.m < 2) throw badRequest(`${where}hnsw_config.m must be an integer from 2 to 128, got ${given.m} (0, no HNSW index, is taken on a multivector only)`);
  const m = given?.m ?? base.m;
  const sameM = m === base.m;
  const m0 = given?.m0 ?? (sameM && base.m0 !== undefined ? base.m0 : 2 * m);
  if (m0 < m) throw badRequest(`${where}hnsw_config.m0 must be an integer from ${m} to ${MAX_M0}, got ${m0}`);
  return { m, m0, efConstruct: given?.ef_construct ?? base.efConstruct, ml: given?.ml ?? (sameM && base.ml !== undefined ? base.ml : 1 / Math.log(m)) };
}

/**
 * The Create Collection body as a collection config with the spec's defaults: one unnamed
 * vector, or (Qdrant's forms) named dense vectors and sparse vectors. A named vector "" is the
 * unnamed one.
 */
export function parseCollectionBody(body: unknown): CollectionConfig {
  return parseCreateCollection(body).config;
}

/**
 * The Create Collection body as a config and the settings it starts with: its quantization_config,
 * on_disk of the unnamed vector, Qdrant's params, optimizer, WAL and strict mode settings, HNSW
 * fields beside the graph's, each vector's own hnsw_config and datatype as given, and metadata.
 */
export function parseCreateCollection(body: unknown): { config: CollectionConfig; settings: CollectionSettings } {
  const obj = bodyObject(body);
  const vectors = obj.vectors;
  // The map form names its vectors; anything else (one vector, or a mistake in one) is checked as one vector.
  const isMap = isObject(vectors) && !('size' in vectors) && !('distance' in vectors);
  const checked = isMap ? checkBody(namedVectorsCollectionBody, obj) : checkBody(oneVectorCollectionBody, obj);
  const { sparse_vectors: sparse, hnsw_config: hnsw } = checked;
  const base = hnswOf(hnsw, DEFAULT_HNSW, '');
  const config: CollectionConfig = { size: 0, distance: 'Cosine', ...base };
  let unnamedOnDisk = false;
  let quantization = checked.quantization_config;
  const vectorParams: Record<string, unknown> = {};
  const keepVectorParams = (name: string, v: NamedVectorGiven) => {
    const kept = defined({ hnsw_config: v.hnsw_config ? defined(v.hnsw_config) : undefined, datatype: v.datatype });
    if (Object.keys(kept).length > 0) vectorParams[name] = kept;
  };
  // A multivector is scanned exactly (no graph): its hnsw_config is only kept and reported.
  const multiOf = (name: string, v: NamedVectorGiven): boolean => {
    if (!v.multivector_config) return false;
    const where = name === '' && !isMap ? 'vectors' : `vectors.${name}`;
    if (v.on_disk) throw badRequest(`${where}.on_disk true is not supported on a multivector (its matrices live in RAM here)`);
    if (v.quantization_config) throw badRequest(`${where}.quantization_config is not supported on a multivector (its matrices are scored on the floats here)`);
    (config.multi ??= {})[name] = { size: v.size, distance: distanceOf(v.distance), comparator: v.multivector_config.comparator };
    keepVectorParams(name, v);
    return true;
  };
  if (!isMap) {
    const one = (checked as z.output<typeof oneVectorCollectionBody>).vectors;
    if (!one && !sparse) throw badRequest('vectors is required: {"size": <dimension>, "distance": "Cosine" | "Euclid" | "Dot" | "Manhattan"} (or name vectors, or send sparse_vectors)');
    if (one && !multiOf('', one)) {
      Object.assign(config, { size: one.size, distance: distanceOf(one.distance), ...hnswOf(one.hnsw_config, base, 'vectors.') });
      keepVectorParams('', one);
      unnamedOnDisk = one.on_disk === true;
      if (one.quantization_config) {
        if (quantization && JSON.stringify(quantization) !== JSON.stringify(one.quantization_config)) throw badRequest('vectors.quantization_config and quantization_config differ: the unnamed vector is the only dense one, so give one of them');
        quantization = one.quantization_config;
      }
    }
  }
  for (const [name, v] of Object.entries(isMap ? (checked.vectors as Record<string, NamedVectorGiven>) : {})) {
    if (multiOf(name, v)) continue;
    const params = { size: v.size, distance: distanceOf(v.distance), ...hnswOf(v.hnsw_config, base, `vectors.${name}.`) };
    keepVectorParams(name, v);
    if (name === '') {
      Object.assign(config, params);
      unnamedOnDisk = v.on_disk === true;
    } else (config.named ??= {})[name] = { ...params, onDisk: v.on_disk ?? false };
  }
  for (const [name, s] of Object.entries(sparse ?? {})) {
    if (config.named?.[name] || config.multi?.[name] || (name === '' && config.size > 0)) throw badRequest(`sparse_vectors.${name} names a dense vector too: give each vector its own name`);
    const index = Object.fromEntries(Object.entries(s.index ?? {}).filter(([, value]) => value !== null && value !== undefined));
    (config.sparse ??= {})[name] = { modifier: s.modifier ?? 'none', index };
  }
  const names = [...Object.keys(config.named ?? {}), ...Object.keys(config.sparse ?? {}), ...Object.keys(config.multi ?? {})];
  const long = names.find((name) => name.length > MAX_VECTOR_NAME);
  if (long !== undefined) throw badRequest(`vector name "${long.slice(0, 40)}..." is longer than ${MAX_VECTOR_NAME} characters`);
  if (names.length > MAX_VECTOR_NAMES) throw badRequest(`a collection has at most ${MAX_VECTOR_NAMES} named, sparse and multivectors`);
  if (config.size === 0 && !config.named && !config.sparse && !config.multi) throw badRequest('vectors must name at least one vector (or send sparse_vectors)');
  // The collection's own m and ef_construct are kept where the unnamed vector's hnsw_config gave it others (Qdrant reports both).
  const hnswSettings = { ...hnswExtras(hnsw), ...(config.m !== base.m ? { m: base.m } : {}), ...(config.efConstruct !== base.efConstruct ? { ef_construct: base.efConstruct } : {}) };
  // The unnamed vector's on_disk is a setting (on-disk-config.ts); a named one's is in its config.
  const settings: CollectionSettings = {
    ...(quantization ? quantizationSettings(quantization) : {}),
    ...(unnamedOnDisk ? { [VECTORS_GROUP]: { '': { on_disk: true } } } : {}),
    ...settingsOf(checked),
    ...(Object.keys(hnswSettings).length > 0 ? { hnsw_config: hnswSettings } : {}),
    ...(Object.keys(vectorParams).length > 0 ? { [VECTOR_PARAMS_GROUP]: vectorParams } : {}),
    ...(checked.metadata ? { [METADATA_GROUP]: { value: checked.metadata } } : {}),
  };
  return { config, settings };
}

interface NamedVectorGiven {
  size: number;
  distance: string;
  hnsw_config?: HnswGiven | null;
  on_disk?: boolean | null;
  datatype?: 'float32' | null;
  quantization_config?: unknown;
  multivector_config?: { comparator: 'max_sim' } | null;
}
