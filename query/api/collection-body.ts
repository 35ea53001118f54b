import { badRequest } from '../../storage/errors.js';
import { DISTANCES, type CollectionConfig, type Distance } from '../../storage/events/types.js';
import { bodyObject, isObject, optionalInt } from './fields.js';

export const MAX_DIMENSION = 65536;
export const DEFAULT_HNSW = { m: 16, efConstruct: 200 } as const;

function distanceOf(raw: unknown): Distance {
  const found = DISTANCES.find((d) => typeof raw === 'string' && d.toLowerCase() === raw.toLowerCase());
  if (!found) throw badRequest(`vectors.distance must be one of ${DISTANCES.join(', ')}, got ${JSON.stringify(raw)}`);
  return found;
}

function requiredInt(obj: Record<string, unknown>, key: string, min: number, max: number, where: string): number {
  if (obj[key] === undefined || obj[key] === null) throw badRequest(`${where} is required`);
  return optionalInt(obj, key, 0, min, max, where);
}

/** The Create Collection body as a collection config with the spec's defaults. */
export function parseCollectionBody(body: unknown): CollectionConfig {
  const obj = bodyObject(body);
  if (!isObject(obj.vectors)) throw badRequest('vectors is required: {"size": <dimension>, "distance": "Cosine" | "Euclid" | "Dot"}');
  const size = requiredInt(obj.vectors, 'size', 1, MAX_DIMENSION, 'vectors.size');
  const distance = distanceOf(obj.vectors.distance);
  const hnsw = obj.hnsw_config;
  if (hnsw === undefined || hnsw === null) {
    const { m, efConstruct } = DEFAULT_HNSW;
    return { size, distance, m, m0: 2 * m, efConstruct, ml: 1 / Math.log(m) };
  }
  if (!isObject(hnsw)) throw badRequest('hnsw_config must be an object with m and ef_construct');
  const m = requiredInt(hnsw, 'm', 2, 128, 'hnsw_config.m');
  const efConstruct = requiredInt(hnsw, 'ef_construct', 4, 4096, 'hnsw_config.ef_construct');
  const m0 = optionalInt(hnsw, 'm0', 2 * m, m, 512, 'hnsw_config.m0');
  let ml = 1 / Math.log(m);
  if (hnsw.ml !== undefined && hnsw.ml !== null) {
    if (typeof hnsw.ml !== 'number' || !(hnsw.ml > 0) || hnsw.ml > 10) throw badRequest('hnsw_config.ml must be a number above 0 and at most 10');
    ml = hnsw.ml;
  }
  return { size, distance, m, m0, efConstruct, ml };
}
