import type * as z from 'zod';
import { DEFAULT_QUANTIZATION, type QuantizationParams } from '../search/vector-search.js';
import type { quantizationParams } from './schemas/quantization.js';

/** params.quantization as the search takes it: the defaults where a field is absent. */
export function quantizationOf(given: z.output<typeof quantizationParams> | null | undefined): QuantizationParams {
  return {
    ignore: given?.ignore ?? DEFAULT_QUANTIZATION.ignore,
    rescore: given?.rescore ?? DEFAULT_QUANTIZATION.rescore,
    oversampling: given?.oversampling ?? DEFAULT_QUANTIZATION.oversampling,
  };
}
