import * as z from 'zod';
import { DISTANCES } from '../../../storage/events/types.js';
import { intIn } from './fields.js';

export const MAX_DIMENSION = 65536;
export const MAX_M0 = 512;

export const distance = z
  .string()
  .refine((raw) => DISTANCES.some((d) => d.toLowerCase() === raw.toLowerCase()))
  .meta({ description: `one of ${DISTANCES.join(', ')}`, examples: [...DISTANCES] });

/** Create Collection. */
export const createCollectionBody = z
  .strictObject({
    vectors: z
      .strictObject({
        size: intIn(1, MAX_DIMENSION),
        distance,
      })
      .meta({ description: '{"size": <dimension>, "distance": "Cosine" | "Euclid" | "Dot"}' }),
    hnsw_config: z
      .strictObject({
        m: intIn(2, 128),
        ef_construct: intIn(4, 4096),
        m0: intIn(2, MAX_M0).nullish().meta({ description: `an integer from m to ${MAX_M0} (default 2*m)` }),
        ml: z.number().gt(0).lte(10).nullish().meta({ description: 'a number above 0 and at most 10 (default 1/ln(m))' }),
      })
      .nullish()
      .meta({ description: 'an object with m and ef_construct' }),
  })
  .meta({ id: 'CreateCollectionBody' });
