import { badRequest } from '../../storage/errors.js';
import { canonicalUuid, type PointId } from '../../storage/point-id.js';
import { checkPointId } from '../../storage/engine/validate-event.js';
import type { Scalar } from '../../storage/views/payload-paths.js';
import { instantOf, textTokens } from '../../storage/text-tokens.js';
import { parseGeo } from './parse-geo.js';
import type { Bounds, Condition, Filter, TextMode } from './types.js';

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
const isScalar = (v: unknown): v is Scalar =>
  typeof v === 'string' || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v));

const FILTER_KEYS = new Set(['must', 'should', 'must_not', 'min_should']);
const RANGE_KEYS = ['gt', 'gte', 'lt', 'lte'] as const;

function parseKey(raw: unknown, where: string): { key: string; path: string[] } {
  if (typeof raw !== 'string' || raw.length === 0) throw badRequest(`${where}.key must be a non-empty string`);
  const path = raw.split('.').map((part) => part.replace(/\[\]$/, ''));
  if (path.some((part) => part.length === 0)) throw badRequest(`${where}.key "${raw}" has an empty part`);
  return { key: raw, path };
}

function parseScalars(raw: unknown, where: string): Set<Scalar> {
  if (!Array.isArray(raw) || !raw.every(isScalar)) throw badRequest(`${where} must be an array of strings, numbers or booleans`);
  return new Set(raw);
}

const TEXT_MODES: readonly TextMode[] = ['text', 'text_any', 'phrase'];

function parseMatch(raw: unknown, key: { key: string; path: string[] }, where: string): Condition {
  if (!isObject(raw)) throw badRequest(`${where} must be an object such as {"value": "x"}`);
  if ('value' in raw) {
    if (!isScalar(raw.value)) throw badRequest(`${where}.value must be a string, number or boolean`);
    return { kind: 'match', ...key, value: raw.value };
  }
  if ('any' in raw) return { kind: 'match_any', ...key, values: parseScalars(raw.any, `${where}.any`) };
  if ('except' in raw) return { kind: 'match_except', ...key, values: parseScalars(raw.except, `${where}.except`) };
  const mode = TEXT_MODES.find((name) => name in raw);
  if (mode) {
    const text = raw[mode];
    if (typeof text !== 'string') throw badRequest(`${where}.${mode} must be a string`);
    return { kind: 'match_text', ...key, mode, text, tokens: textTokens(text) };
  }
  throw badRequest(`${where} needs one of "value", "any", "except", "text", "text_any" or "phrase"`);
}

/** gt/gte/lt/lte as numbers, or (datetime) RFC 3339 strings read as instants: all of one kind. */
function parseBounds(raw: unknown, where: string, allowDatetime: boolean): { bounds: Bounds; datetime: boolean } {
  if (!isObject(raw)) throw badRequest(`${where} must be an object with gt, gte, lt or lte`);
  const bounds: Bounds = {};
  let kind: 'number' | 'datetime' | null = null;
  for (const [name, value] of Object.entries(raw)) {
    if (!(RANGE_KEYS as readonly string[]).includes(name)) throw badRequest(`${where}.${name} is not a range bound (gt, gte, lt, lte)`);
    if (value === null) continue;
    const instant = allowDatetime && typeof value === 'string' ? instantOf(value) : null;
    const here = typeof value === 'number' && Number.isFinite(value) ? 'number' : instant !== null ? 'datetime' : null;
    if (here === null) throw badRequest(`${where}.${name} must be a finite number${allowDatetime ? ' or an RFC 3339 date-time' : ''}, got ${JSON.stringify(value)}`);
    if (kind !== null && kind !== here) throw badRequest(`${where} mixes numbers and date-times: use one kind of bound`);
    kind = here;
    bounds[name as (typeof RANGE_KEYS)[number]] = here === 'number' ? (value as number) : instant!;
  }
  if (kind === null) throw badRequest(`${where} needs at least one of gt, gte, lt, lte`);
  return { bounds, datetime: kind === 'datetime' };
}

function parseRange(raw: unknown, key: { key: string; path: string[] }, where: string): Condition {
  const { bounds, datetime } = parseBounds(raw, where, true);
  return { kind: 'range', ...key, ...bounds, datetime };
}

/** One condition of a filter (also a formula's condition expression). */
export function parseCondition(raw: unknown, where: string): Condition {
  if (!isObject(raw)) throw badRequest(`${where} must be an object`);
  if (Object.keys(raw).some((k) => FILTER_KEYS.has(k))) return { kind: 'nested', filter: parseFilter(raw, where) };
  if ('has_id' in raw) {
    if (!Array.isArray(raw.has_id)) throw badRequest(`${where}.has_id must be an array of point ids`);
    const ids = raw.has_id.map((id: unknown) => (typeof id === 'string' ? (canonicalUuid(id) ?? id) : id));
    for (const id of ids) checkPointId(id);
    return { kind: 'has_id', ids: new Set(ids as PointId[]) };
  }
  if ('has_vector' in raw) {
    if (typeof raw.has_vector !== 'string') throw badRequest(`${where}.has_vector must be the name of a vector ("" for the unnamed one)`);
    return { kind: 'has_vector', name: raw.has_vector };
  }
  if ('is_empty' in raw || 'is_null' in raw) {
    const kind = 'is_empty' in raw ? 'is_empty' : 'is_null';
    const inner = raw[kind];
    if (!isObject(inner)) throw badRequest(`${where}.${kind} must be an object like {"key": "field"}`);
    return { kind, ...parseKey(inner.key, `${where}.${kind}`) };
  }
  if ('nested' in raw) {
    const inner = raw.nested;
    if (!isObject(inner)) throw badRequest(`${where}.nested must be an object {"key": "array field", "filter": {...}}`);
    const filter = parseFilter(inner.filter, `${where}.nested.filter`);
    // Qdrant refuses it: the filter reads the array's elements, which have no ids.
    if (namesIds(filter)) throw badRequest(`${where}.nested.filter: has_id is not supported inside nested (its conditions read the array's elements, which have no ids); put has_id beside the nested condition`);
    return { kind: 'nested_array', ...parseKey(inner.key, `${where}.nested`), filter };
  }
  const key = parseKey(raw.key, where);
  const area = parseGeo(raw, where);
  if (area) return { kind: 'geo', ...key, area };
  if ('match' in raw) return parseMatch(raw.match, key, `${where}.match`);
  if ('range' in raw) return parseRange(raw.range, key, `${where}.range`);
  if ('values_count' in raw) return { kind: 'values_count', ...key, ...parseBounds(raw.values_count, `${where}.values_count`, false).bounds };
  throw badRequest(`${where} needs "match", "range", "values_count", "geo_radius", "geo_bounding_box" or "geo_polygon" beside "key" (or has_id, has_vector, is_empty, is_null, nested, or a nested filter)`);
}

/** Whether a filter has a has_id condition at any depth. */
function namesIds(f: Filter): boolean {
  return [...f.must, ...f.should, ...f.mustNot, ...(f.minShould?.conditions ?? [])].some((c) => c.kind === 'has_id' || ((c.kind === 'nested' || c.kind === 'nested_array') && namesIds(c.filter)));
}

function parseClause(raw: unknown, where: string): Condition[] {
  if (raw === undefined || raw === null) return [];
  const items = Array.isArray(raw) ? raw : [raw];
  return items.map((item, i) => parseCondition(item, Array.isArray(raw) ? `${where}[${i}]` : where));
}

/** Parses a JSON filter, throwing a 400 that names the offending part. */
export function parseFilter(raw: unknown, where = 'filter'): Filter {
  if (!isObject(raw)) throw badRequest(`${where} must be an object with must, should or must_not`);
  for (const k of Object.keys(raw)) {
    if (!FILTER_KEYS.has(k)) throw badRequest(`${where}.${k} is not supported: use must, should or must_not`);
  }
  const filter: Filter = {
    must: parseClause(raw.must, `${where}.must`),
    should: parseClause(raw.should, `${where}.should`),
    mustNot: parseClause(raw.must_not, `${where}.must_not`),
  };
  if (raw.min_should !== undefined && raw.min_should !== null) {
    const m = raw.min_should;
    if (!isObject(m) || !Array.isArray(m.conditions) || typeof m.min_count !== 'number' || !Number.isInteger(m.min_count) || m.min_count < 0) {
      throw badRequest(`${where}.min_should must be an object {"conditions": [...], "min_count": N}`);
    }
    filter.minShould = { conditions: parseClause(m.conditions, `${where}.min_should.conditions`), minCount: m.min_count };
  }
  return filter;
}

/** A filter from an optional JSON value: null when absent. */
export function parseOptionalFilter(raw: unknown, where = 'filter'): Filter | null {
  return raw === undefined || raw === null ? null : parseFilter(raw, where);
}
