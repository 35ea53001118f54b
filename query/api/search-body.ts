import type * as z from 'zod';
import { badRequest } from '../../storage/errors.js';
import { parseOptionalFilter } from '../filter/parse-filter.js';
import type { VectorQuery } from '../search/vector-search.js';
import { checkBody } from './check-body.js';
import { bodyObject } from './fields.js';
import { sparseFrom } from './vector-input.js';
import { outputOptions, type OutputOptions } from './output-options.js';
import { quantizationOf } from './quantization-params.js';
import { batchSearchBody, searchBody } from './schemas/search.js';

export const DEFAULT_EF = 100;

export interface SearchRequest extends VectorQuery, OutputOptions {}

type SearchFields = z.output<typeof searchBody>;

/** `ef` may come as `ef`, `params.ef` or Qdrant's `params.hnsw_ef`: one value. */
function efOf(body: SearchFields, where: string): number {
  const given = [body.ef, body.params?.ef, body.params?.hnsw_ef].filter((v): v is number => v !== undefined && v !== null);
  if (new Set(given).size > 1) throw badRequest(`${where}ef, ${where}params.ef and ${where}params.hnsw_ef name the same setting; send one of them`);
  return given[0] ?? DEFAULT_EF;
}

function searchRequest(body: Omit<SearchFields, 'vector'>, given: SearchFields['vector'], where = ''): SearchRequest {
  const named = Array.isArray(given) || ArrayBuffer.isView(given) ? null : given;
  const v = named ? named.vector : (given as number[]);
  const dense = Array.isArray(v) || ArrayBuffer.isView(v);
  return {
    vector: dense ? Float32Array.from(v) : new Float32Array(0),
    using: named?.name ?? '',
    sparse: dense ? null : sparseFrom(v),
    limit: body.limit ?? 10,
    offset: body.offset ?? 0,
    ef: efOf(body as SearchFields, where),
    filter: parseOptionalFilter(body.filter, `${where}filter`),
    scoreThreshold: body.score_threshold ?? null,
    quantization: quantizationOf(body.params?.quantization),
    ...outputOptions(body),
  };
}

/** Qdrant's search body (`vector`); /points/query takes the universal query (universal-body.ts). */
export function parseSearchBody(raw: unknown): SearchRequest {
  const checked = checkBody(searchBody, bodyObject(raw));
  return searchRequest(checked, checked.vector);
}

/** Batch search: one request per entry of `searches`, in order. */
export function parseBatchSearchBody(raw: unknown): SearchRequest[] {
  return checkBody(batchSearchBody, bodyObject(raw)).searches.map((s, i) => searchRequest(s, s.vector, `searches[${i}].`));
}
