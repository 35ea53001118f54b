import * as z from 'zod';
import { DISTANCES } from '../../../storage/events/types.js';
import { intIn } from './fields.js';
import { quantizationConfig } from './quantization.js';
import { createSettingsFields, hnswExtraFields } from './collection-settings.js';

export const MAX_DIMENSION = 65536;
export const MAX_M0 = 512;

export const distance = z
  .string()
  .refine((raw) => DISTANCES.some((d) => d.toLowerCase() === raw.toLowerCase()))
  .meta({ description: `one of ${DISTANCES.join(', ')}`, examples: [...DISTANCES] });

const hnswConfig = z
  .strictObject({
    m: intIn(2, 128).nullish().meta({ description: 'an integer from 2 to 128 (default 16)' }),
    ef_construct: intIn(4, 4096).nullish().meta({ description: 'an integer from 4 to 4096 (default 200)' }),
    m0: intIn(2, MAX_M0).nullish().meta({ description: `an integer from m to ${MAX_M0} (default 2*m)` }),
    ml: z.number().gt(0).lte(10).nullish().meta({ description: 'a number above 0 and at most 10 (default 1/ln(m))' }),
    ...hnswExtraFields,
  })
  .nullish()
  .meta({ description: 'an object with any of m, ef_construct, m0, ml, full_scan_threshold, max_indexing_threads, payload_m, on_disk' });

/** Qdrant's datatype of stored vectors: float32 only (the floats are kept as 32-bit floats). */
const datatype = z.literal('float32').nullish().meta({ description: '"float32" (vectors are stored as 32-bit floats here: float16 and uint8 are not supported)' });

/** A vector's own HNSW settings: each one given replaces the collection's. */
const hnswDiff = z
  .strictObject({
    m: intIn(0, 128).nullish().meta({ description: 'an integer from 2 to 128, or 0 (no HNSW index) on a multivector' }),
    ef_construct: intIn(4, 4096).nullish(),
    m0: intIn(2, MAX_M0).nullish(),
    ml: z.number().gt(0).lte(10).nullish().meta({ description: 'a number above 0 and at most 10' }),
    ...hnswExtraFields,
  })
  .meta({ description: 'an object with any of m, ef_construct, m0, ml, full_scan_threshold, max_indexing_threads, payload_m, on_disk' });

/** Qdrant's multivector_config: the vector holds a matrix per point, compared by max_sim. */
const multivectorConfig = z
  .strictObject({ comparator: z.literal('max_sim').meta({ description: '"max_sim"' }) })
  .meta({ description: '{"comparator": "max_sim"}' });

const onDisk = z.boolean().nullish().meta({ description: 'true: the float vectors live in a file in the data dir, read for rescoring (and for the walk without quantization)' });

/** The unnamed vector: its quantization_config is the collection's (it is the only dense vector). */
const oneVector = z
  .strictObject({ size: intIn(1, MAX_DIMENSION), distance, hnsw_config: hnswDiff.nullish(), quantization_config: quantizationConfig.nullish(), on_disk: onDisk, datatype, multivector_config: multivectorConfig.nullish() })
  .meta({ description: '{"size": <dimension>, "distance": "Cosine" | "Euclid" | "Dot" | "Manhattan", "hnsw_config"?, "quantization_config"?, "on_disk"?, "datatype"?, "multivector_config"?}' });

const namedVector = z
  .strictObject({ size: intIn(1, MAX_DIMENSION), distance, hnsw_config: hnswDiff.nullish(), on_disk: onDisk, datatype, multivector_config: multivectorConfig.nullish() })
  .meta({ description: '{"size": <dimension>, "distance": "Cosine" | "Euclid" | "Dot" | "Manhattan", "hnsw_config"?, "on_disk"?, "datatype"?, "multivector_config"?}' });

const sparseVectorParams = z
  .strictObject({
    index: z
      .strictObject({
        on_disk: z.boolean().nullish(),
        full_scan_threshold: z.int().min(0).nullish().meta({ description: 'a non-negative integer' }),
        datatype: z.literal('float32').nullish().meta({ description: '"float32"' }),
      })
      .nullish()
      .meta({ description: 'an object with any of on_disk, full_scan_threshold, datatype' }),
    modifier: z.enum(['none', 'idf']).nullish(),
  })
  .meta({ description: '{"index"?: {...}, "modifier"?: "none" | "idf"}' });

const sparseVectors = z.record(z.string().min(1), sparseVectorParams).nullish().meta({ description: 'an object from sparse vector names to {index?, modifier?}' });

/** Create Collection with one unnamed vector (and sparse vectors, if any). */
export const oneVectorCollectionBody = z
  .strictObject({
    vectors: oneVector.optional(),
    sparse_vectors: sparseVectors,
    hnsw_config: hnswConfig,
    quantization_config: quantizationConfig.nullish(),
    ...createSettingsFields,
  })
  .meta({ id: 'CreateCollectionBody' });

/** Create Collection with named vectors (Qdrant's map form; "" is the unnamed vector). */
export const namedVectorsCollectionBody = z
  .strictObject({
    vectors: z.record(z.string(), namedVector).meta({ description: 'an object from vector names to {size, distance, hnsw_config?, on_disk?}' }),
    sparse_vectors: sparseVectors,
    hnsw_config: hnswConfig,
    quantization_config: quantizationConfig.nullish(),
    ...createSettingsFields,
  })
  .meta({ id: 'CreateNamedVectorsCollectionBody' });

/** Create Collection, in either form (the OpenAPI document's). */
export const createCollectionBody = z.union([oneVectorCollectionBody, namedVectorsCollectionBody]).meta({ id: 'CreateCollectionBodies' });

