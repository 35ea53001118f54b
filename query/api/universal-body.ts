import type * as z from 'zod';
import { badRequest } from '../../storage/errors.js';
import { parseOptionalFilter } from '../filter/parse-filter.js';
import type { ContextPair, QueryKind, QueryPlan, VectorInput } from '../search/universal/plan.js';
import { orderValue } from '../search/universal/order-value.js';
import { checkBody } from './check-body.js';
import { bodyObject } from './fields.js';
import { multiFrom, sparseFrom } from './vector-input.js';
import { outputOptions, payloadPath, type OutputOptions } from './output-options.js';
import type { JsonPath } from '../../storage/json-path.js';
import { universalBatchBody, universalGroupsBody, universalQueryBody, type prefetch, type queryForm } from './schemas/universal-query.js';
import { DEFAULT_EF } from './search-body.js';
import { quantizationOf } from './quantization-params.js';
import { parseFormula } from './formula-body.js';
import { discoverBatchBody, discoverBody, recommendBatchBody, recommendBody, recommendGroupsBody, searchGroupsBody } from './schemas/recommend.js';

export interface UniversalQuery extends OutputOptions {
  plan: QueryPlan;
}

type Form = z.output<typeof queryForm>;
type Stage = z.output<typeof prefetch> & { offset?: number | null; ef?: number | null };

const DEFAULT_MMR_DIVERSITY = 0.5;
/** Qdrant's k of reciprocal rank fusion when none is given. */
const DEFAULT_RRF_K = 2;

type Dense = number[] | Float32Array | Float64Array;

function input(v: Dense | Dense[] | number | string | { indices: number[]; values: number[] }): VectorInput {
  if (typeof v === 'number' || typeof v === 'string') return { id: v };
  if (Array.isArray(v) && v.length > 0 && (Array.isArray(v[0]) || ArrayBuffer.isView(v[0]))) return { multi: multiFrom(v as Dense[]) };
  return Array.isArray(v) || ArrayBuffer.isView(v) ? { vector: Float32Array.from(v as Dense) } : { sparse: sparseFrom(v) };
}

/** rrf's weights, checked: one per prefetch (as Qdrant requires). */
function rrfWeights(weights: number[] | null | undefined, prefetches: number, where: string): number[] | null {
  if (weights === null || weights === undefined) return null;
  if (weights.length !== prefetches) throw badRequest(`${where}query.rrf.weights has ${weights.length} weights for ${prefetches} prefetches: send one weight per prefetch`);
  return weights;
}

type Example = Parameters<typeof input>[0];

function contextPairs(context: { positive: Example; negative: Example } | { positive: Example; negative: Example }[] | null | undefined): ContextPair[] {
  if (context === null || context === undefined) return [];
  return (Array.isArray(context) ? context : [context]).map((p) => ({ positive: input(p.positive), negative: input(p.negative) }));
}

function queryKind(form: Form | null | undefined, limit: number, prefetches: number, where: string): QueryKind {
  if (form === null || form === undefined) return { kind: 'none' };
  if (typeof form !== 'object' || Array.isArray(form) || ArrayBuffer.isView(form)) return { kind: 'nearest', target: input(form as number[]), mmr: null };
  if ('indices' in form) return { kind: 'nearest', target: input(form), mmr: null };
  if ('nearest' in form) {
    const m = form.mmr;
    return { kind: 'nearest', target: input(form.nearest), mmr: m ? { diversity: m.diversity ?? DEFAULT_MMR_DIVERSITY, candidates: m.candidates_limit ?? limit } : null };
  }
  if ('recommend' in form) {
    const r = form.recommend;
    return { kind: 'recommend', positive: (r.positive ?? []).map(input), negative: (r.negative ?? []).map(input), strategy: r.strategy ?? 'average_vector' };
  }
  if ('discover' in form) return { kind: 'discover', target: input(form.discover.target), context: contextPairs(form.discover.context) };
  if ('context' in form) return { kind: 'discover', target: null, context: contextPairs(form.context) };
  if ('fusion' in form) return { kind: 'fusion', method: form.fusion, k: DEFAULT_RRF_K, weights: null };
  if ('rrf' in form) return { kind: 'fusion', method: 'rrf', k: form.rrf.k ?? DEFAULT_RRF_K, weights: rrfWeights(form.rrf.weights, prefetches, where) };
  if ('formula' in form) return { kind: 'formula', formula: parseFormula(form.formula, form.defaults, `${where}query.formula`), distances: Array<boolean>(prefetches).fill(false) };
  if ('order_by' in form) {
    const o = typeof form.order_by === 'string' ? { key: form.order_by } : form.order_by;
    const start = 'start_from' in o ? o.start_from : null;
    const startFrom = start === null || start === undefined ? null : typeof start === 'number' ? start : orderValue({ v: start }, 'v');
    if (start !== null && start !== undefined && startFrom === null) throw badRequest(`order_by.start_from must be a number or an RFC 3339 date-time, got ${JSON.stringify(start)}`);
    return { kind: 'order_by', key: o.key, direction: ('direction' in o ? o.direction : null) ?? 'asc', startFrom };
  }
  return { kind: 'sample' };
}

function stagePlan(stage: Stage, where: string, defaultLimit: number): QueryPlan {
  const limit = stage.limit ?? defaultLimit;
  const given = [stage.ef, stage.params?.hnsw_ef, stage.params?.ef].filter((v): v is number => v !== undefined && v !== null);
  const prefetches = stage.prefetch ? (Array.isArray(stage.prefetch) ? stage.prefetch : [stage.prefetch]) : [];
  return {
    query: queryKind(stage.query, limit, prefetches.length, where),
    prefetch: prefetches.map((p, i) => stagePlan(p, `${where}prefetch[${i}].`, 10)),
    using: stage.using ?? '',
    filter: parseOptionalFilter(stage.filter, `${where}filter`),
    scoreThreshold: stage.score_threshold ?? null,
    thresholdExclusive: false,
    limit,
    offset: stage.offset ?? 0,
    ef: given[0] ?? DEFAULT_EF,
    exact: stage.params?.exact === true,
    quantization: quantizationOf(stage.params?.quantization),
    lookupFrom: stage.lookup_from ? { collection: stage.lookup_from.collection, vector: stage.lookup_from.vector ?? null } : null,
  };
}

/** Qdrant's universal query: the plan to run and what each result carries. */
export function parseUniversalQuery(raw: unknown): UniversalQuery {
  const body = checkBody(universalQueryBody, bodyObject(raw));
  return { plan: stagePlan(body, '', 10), ...outputOptions(body) };
}

export function parseUniversalBatch(raw: unknown): UniversalQuery[] {
  return checkBody(universalBatchBody, bodyObject(raw)).searches.map((s, i) => ({ plan: stagePlan(s, `searches[${i}].`, 10), ...outputOptions(s) }));
}

export interface GroupsQuery extends UniversalQuery {
  /** The group_by key, a JSON path. */
  groupBy: JsonPath;
  groupSize: number;
  groups: number;
}

/** /points/query/groups: the query, then up to `limit` groups of `group_size` hits by a payload key. */
export function parseUniversalGroups(raw: unknown): GroupsQuery {
  const body = checkBody(universalGroupsBody, bodyObject(raw));
  const groups = body.limit ?? 10;
  const groupSize = body.group_size ?? 3;
  return { plan: stagePlan({ ...body, limit: Math.min(groups * groupSize * 10, 10_000), offset: 0 }, '', 10), ...outputOptions(body), groupBy: payloadPath(body.group_by, 'group_by'), groupSize, groups };
}

/** Qdrant's recommend body as a universal query. */
export function parseRecommend(raw: unknown, where = ''): UniversalQuery {
  const b = checkBody(recommendBody, bodyObject(raw));
  return parseStage({ query: { recommend: { positive: b.positive, negative: b.negative, strategy: b.strategy } }, filter: b.filter, params: b.params, limit: b.limit, offset: b.offset, score_threshold: b.score_threshold, using: b.using, lookup_from: b.lookup_from }, b, where);
}

export function parseRecommendBatch(raw: unknown): UniversalQuery[] {
  return checkBody(recommendBatchBody, bodyObject(raw)).searches.map((s, i) => parseRecommend(s, `searches[${i}].`));
}

/** Qdrant's recommend/groups body as a grouped universal query. */
export function parseRecommendGroups(raw: unknown): GroupsQuery {
  const b = checkBody(recommendGroupsBody, bodyObject(raw));
  const groups = b.limit ?? 10;
  const groupSize = b.group_size ?? 3;
  const query = { recommend: { positive: b.positive, negative: b.negative, strategy: b.strategy } };
  const q = parseStage({ query, filter: b.filter, params: b.params, score_threshold: b.score_threshold, limit: Math.min(groups * groupSize * 10, 10_000), using: b.using, lookup_from: b.lookup_from }, b, '');
  return { ...q, groupBy: payloadPath(b.group_by, 'group_by'), groupSize, groups };
}

/** Qdrant's discover body as a universal query (without a target: a context search). */
export function parseDiscover(raw: unknown, where = ''): UniversalQuery {
  const b = checkBody(discoverBody, bodyObject(raw));
  const q = parseStage({ filter: b.filter, params: b.params, limit: b.limit, offset: b.offset, score_threshold: b.score_threshold, using: b.using, lookup_from: b.lookup_from }, b, where);
  const target = b.target === null || b.target === undefined ? null : input(b.target);
  return { ...q, plan: { ...q.plan, query: { kind: 'discover', target, context: contextPairs(b.context) } } };
}

export function parseDiscoverBatch(raw: unknown): UniversalQuery[] {
  return checkBody(discoverBatchBody, bodyObject(raw)).searches.map((s, i) => parseDiscover(s, `searches[${i}].`));
}

/** Qdrant's search/groups body as a grouped universal query. */
export function parseSearchGroups(raw: unknown): GroupsQuery {
  const b = checkBody(searchGroupsBody, bodyObject(raw));
  const groups = b.limit ?? 10;
  const groupSize = b.group_size ?? 3;
  const named = Array.isArray(b.vector) || ArrayBuffer.isView(b.vector) ? null : (b.vector as { name: string; vector: Form });
  if (named && b.using !== undefined && b.using !== null && b.using !== named.name) throw badRequest(`vector.name "${named.name}" and using "${b.using}" name different vectors; send one of them`);
  const query = named ? named.vector : (b.vector as Form);
  const q = parseStage({ query, filter: b.filter, params: b.params, score_threshold: b.score_threshold, limit: Math.min(groups * groupSize * 10, 10_000), using: named?.name ?? b.using }, b, '');
  return { ...q, groupBy: payloadPath(b.group_by, 'group_by'), groupSize, groups };
}

function parseStage(stage: Stage, output: Parameters<typeof outputOptions>[0], where: string): UniversalQuery {
  return { plan: stagePlan(stage, where, 10), ...outputOptions(output) };
}
