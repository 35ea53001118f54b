import { badRequest } from '../../storage/errors.js';
import { parseJsonPath, type JsonPath } from '../../storage/json-path.js';
import { parseCondition } from '../filter/parse-filter.js';
import { decayLambda, epochSeconds, readGeoPoint, pathKey, type DecayKind, type Expression, type Formula, type PayloadVariable } from '../search/universal/formula.js';

/**
 * Reads Qdrant's formula query (`{"formula": expression, "defaults": {variable: value}}`) into
 * the expression formula.ts evaluates, naming the part that is wrong. Constants and decay
 * parameters are 32-bit floats, as Qdrant reads them.
 */

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

const UNARY = ['neg', 'abs', 'sqrt', 'exp', 'log10', 'ln'] as const;
const DECAYS: Record<string, DecayKind> = { lin_decay: 'lin', exp_decay: 'exp', gauss_decay: 'gauss' };
const CONDITION_KEYS = ['key', 'has_id', 'has_vector', 'is_empty', 'is_null', 'nested', 'must', 'should', 'must_not', 'min_should'];
const FORMS = ['a number', 'a variable ("$score", "$score[i]" or a payload key)', 'a filter condition', ...['mult', 'sum', 'div', 'pow', ...UNARY, 'geo_distance', 'datetime', 'datetime_key', ...Object.keys(DECAYS)].map((k) => `{${k}}`)];

function failedToParse(what: string, value: string, message: string): Error {
  return badRequest(`Validation failed: failed to parse ${what} ${value}: ${message}`);
}

type Variable = { score: number } | { payload: PayloadVariable };

/** Qdrant's variable ids: `$score` (prefetch 0), `$score[i]`, or a payload key (a JSON path). */
function parseVariable(text: string): Variable {
  if (text.startsWith('$')) {
    const m = /^\$score(?:\[(\d+)\])?$/.exec(text);
    if (m) return { score: m[1] === undefined ? 0 : Number(m[1]) };
    const reserved = /^\$score(\W|$)/.test(text) ? 'Invalid reserved variable' : 'Invalid reserved word';
    throw failedToParse('variable ID', text, `${reserved}: ${text}`);
  }
  const path = parseJsonPath(text);
  if (!path) throw failedToParse('variable ID', text, `Invalid payload variable: ${text}`);
  return { payload: { path, name: text } };
}

function payloadPath(raw: unknown, where: string): PayloadVariable {
  if (typeof raw !== 'string') throw badRequest(`${where} must be a payload key (a string)`);
  const path: JsonPath | null = parseJsonPath(raw);
  if (!path) throw badRequest(`${where} "${raw}" is not a payload key (a JSON path such as a.b or a[0])`);
  return { path, name: raw };
}

/** An optional 32-bit float parameter. */
function single(raw: unknown, where: string): number | null {
  if (raw === undefined || raw === null) return null;
  if (typeof raw !== 'number') throw badRequest(`${where} must be a number`);
  return Math.fround(raw);
}

function onlyKey(raw: Record<string, unknown>, key: string, where: string): void {
  const other = Object.keys(raw).find((k) => k !== key);
  if (other !== undefined) throw badRequest(`${where}.${other} is not part of a {${key}} expression: send {"${key}": ...} alone`);
}

function fields(raw: unknown, allowed: string[], where: string): Record<string, unknown> {
  if (!isObject(raw)) throw badRequest(`${where} must be an object {${allowed.join(', ')}}`);
  const other = Object.keys(raw).find((k) => !allowed.includes(k));
  if (other !== undefined) throw badRequest(`${where}.${other} is not a field here: send ${allowed.join(', ')}`);
  return raw;
}

function parseExpression(raw: unknown, where: string): Expression {
  if (typeof raw === 'number') return { op: 'constant', value: Math.fround(raw) };
  if (typeof raw === 'string') {
    const v = parseVariable(raw);
    return 'score' in v ? { op: 'score', prefetch: v.score } : { op: 'payload', variable: v.payload };
  }
  if (!isObject(raw)) throw badRequest(`${where} is not an expression: send ${FORMS.join(', ')}`);
  if (CONDITION_KEYS.some((k) => k in raw)) {
    const condition = parseCondition(raw, where);
    return { op: 'condition', filter: { must: [condition], should: [], mustNot: [] } };
  }
  const [op] = Object.keys(raw);
  if (op === undefined) throw badRequest(`${where} is an empty object, not an expression: send ${FORMS.join(', ')}`);
  onlyKey(raw, op, where);
  const body = raw[op];
  const at = `${where}.${op}`;
  if (op === 'mult' || op === 'sum') {
    if (!Array.isArray(body)) throw badRequest(`${at} must be an array of expressions`);
    return { op, args: body.map((arg, i) => parseExpression(arg, `${at}[${i}]`)) };
  }
  if ((UNARY as readonly string[]).includes(op)) return { op: op as (typeof UNARY)[number], arg: parseExpression(body, at) };
  if (op === 'div') {
    const d = fields(body, ['left', 'right', 'by_zero_default'], at);
    return { op, left: parseExpression(d.left, `${at}.left`), right: parseExpression(d.right, `${at}.right`), byZeroDefault: single(d.by_zero_default, `${at}.by_zero_default`) };
  }
  if (op === 'pow') {
    const p = fields(body, ['base', 'exponent'], at);
    return { op, base: parseExpression(p.base, `${at}.base`), exponent: parseExpression(p.exponent, `${at}.exponent`) };
  }
  if (op === 'geo_distance') {
    const g = fields(body, ['origin', 'to'], at);
    const origin = readGeoPoint(g.origin);
    if (typeof origin === 'string') throw badRequest(`${at}.origin must be a geo point {"lon", "lat"}: ${origin}`);
    return { op, origin, to: payloadPath(g.to, `${at}.to`) };
  }
  if (op === 'datetime') {
    if (typeof body !== 'string') throw badRequest(`${at} must be a date-time string`);
    const seconds = epochSeconds(body);
    if (seconds === null) throw failedToParse('date-time', body, 'not an RFC 3339 date-time or a date');
    return { op, seconds };
  }
  if (op === 'datetime_key') return { op, variable: payloadPath(body, at) };
  const kind = DECAYS[op];
  if (kind) {
    const d = fields(body, ['x', 'target', 'scale', 'midpoint'], at);
    const lambda = decayLambda(kind, single(d.midpoint, `${at}.midpoint`) ?? 0.5, single(d.scale, `${at}.scale`) ?? 1);
    const target = d.target === undefined || d.target === null ? null : parseExpression(d.target, `${at}.target`);
    return { op: 'decay', kind, x: parseExpression(d.x, `${at}.x`), target, lambda };
  }
  throw badRequest(`${where}.${op} is not an expression: send ${FORMS.join(', ')}`);
}

/** A formula query's expression and defaults; `where` names it in messages (e.g. "query.formula"). */
export function parseFormula(formula: unknown, defaults: Record<string, unknown> | null | undefined, where: string): Formula {
  if (formula === undefined || formula === null) throw badRequest(`${where} is required: the expression to score the prefetches' points by`);
  const expression = parseExpression(formula, where);
  const scoreDefaults = new Map<number, number>();
  const payloadDefaults = new Map<string, unknown>();
  for (const [key, value] of Object.entries(defaults ?? {})) {
    const v = parseVariable(key);
    if ('score' in v) {
      // Qdrant reads a score default as a number; anything else leaves the default 0.
      if (typeof value === 'number') scoreDefaults.set(v.score, value);
    } else payloadDefaults.set(pathKey(v.payload.path), value);
  }
  return { expression, scoreDefaults, payloadDefaults };
}
