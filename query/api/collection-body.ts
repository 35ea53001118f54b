import { badRequest } from '../../storage/errors.js';
import { DISTANCES, type CollectionConfig } from '../../storage/events/types.js';
import { checkBody } from './check-body.js';
import { bodyObject } from './fields.js';
import { createCollectionBody, MAX_M0 } from './schemas/collection.js';

export const DEFAULT_HNSW = { m: 16, efConstruct: 200 } as const;

/** The Create Collection body as a collection config with the spec's defaults. */
export function parseCollectionBody(body: unknown): CollectionConfig {
  const { vectors, hnsw_config: hnsw } = checkBody(createCollectionBody, bodyObject(body));
  const size = vectors.size;
  const distance = DISTANCES.find((d) => d.toLowerCase() === vectors.distance.toLowerCase())!;
  const m = hnsw?.m ?? DEFAULT_HNSW.m;
  const m0 = hnsw?.m0 ?? 2 * m;
  if (m0 < m) throw badRequest(`hnsw_config.m0 must be an integer from ${m} to ${MAX_M0}, got ${m0}`);
  return { size, distance, m, m0, efConstruct: hnsw?.ef_construct ?? DEFAULT_HNSW.efConstruct, ml: hnsw?.ml ?? 1 / Math.log(m) };
}
