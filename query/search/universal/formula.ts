import type { Collection } from '../../../storage/collection.js';
import { badRequest } from '../../../storage/errors.js';
import { instantOf } from '../../../storage/text-tokens.js';
import { valuesAtPath, type JsonPath } from '../../../storage/json-path.js';
import { matchesFilter } from '../../filter/evaluate-filter.js';
import { haversineMetres } from '../../filter/geo.js';
import type { Filter, GeoPoint } from '../../filter/types.js';

/**
 * Qdrant's score boosting (`{"formula": ..., "defaults": ...}`): an expression over the
 * prefetches' scores, payload values and conditions, evaluated for each point the prefetches
 * found, as Qdrant evaluates it (64-bit arithmetic, the result a 32-bit float; its messages).
 */

/** A payload value the formula reads: its path, and its text as the client wrote it (for messages and defaults). */
export interface PayloadVariable {
  path: JsonPath;
  name: string;
}

export type DecayKind = 'lin' | 'exp' | 'gauss';

export type Expression =
  | { op: 'constant'; value: number }
  /** `$score[prefetch]`: the point's score in that prefetch's results. */
  | { op: 'score'; prefetch: number }
  | { op: 'payload'; variable: PayloadVariable }
  /** 1 when the point matches, else 0. */
  | { op: 'condition'; filter: Filter }
  /** Metres on the sphere (haversine) from the origin to the geo point at the variable. */
  | { op: 'geo_distance'; origin: GeoPoint; to: PayloadVariable }
  /** Seconds since the epoch. */
  | { op: 'datetime'; seconds: number }
  | { op: 'datetime_key'; variable: PayloadVariable }
  | { op: 'mult' | 'sum'; args: Expression[] }
  | { op: 'neg' | 'abs' | 'sqrt' | 'exp' | 'log10' | 'ln'; arg: Expression }
  | { op: 'div'; left: Expression; right: Expression; byZeroDefault: number | null }
  | { op: 'pow'; base: Expression; exponent: Expression }
  /** lambda: the decay's shape from its midpoint and scale (see decayLambda). */
  | { op: 'decay'; kind: DecayKind; x: Expression; target: Expression | null; lambda: number };

export interface Formula {
  expression: Expression;
  /** Scores of points a prefetch did not find, by prefetch (Qdrant's default: 0). */
  scoreDefaults: Map<number, number>;
  /** Values of payload variables a point does not have, by the variable's path (pathKey). */
  payloadDefaults: Map<string, unknown>;
}

/** A key that names a path, however it was quoted. */
export const pathKey = (path: JsonPath): string => JSON.stringify(path);

/** A number as Rust prints an f64 (Qdrant's messages): no exponent, `inf`, `NaN`, integers without `.0`. */
export function rustNumber(x: number): string {
  if (Number.isNaN(x)) return 'NaN';
  if (!Number.isFinite(x)) return x > 0 ? 'inf' : '-inf';
  if (Object.is(x, -0)) return '-0';
  const text = String(x);
  const m = /^(-?)(\d)(?:\.(\d+))?e([+-]\d+)$/.exec(text);
  if (!m) return text;
  const [, sign, lead, frac = '', e] = m;
  const exp = Number(e);
  const digits = lead! + frac;
  return exp > 0 ? sign + digits.padEnd(exp + 1, '0') : `${sign}0.${'0'.repeat(-exp - 1)}${digits}`;
}

function nonFinite(expression: string): Error {
  return badRequest(`The expression ${expression} produced a non-finite number`);
}

function variableError(v: PayloadVariable, expected: string, description: string): Error {
  return badRequest(`Expected ${expected} value for ${v.name} in the payload and/or in the formula defaults. Error: ${description}`);
}

/** Qdrant's decay shape: lin (1 - midpoint) / scale, exp ln(midpoint) / scale, gauss ln(midpoint) / scale². Checks midpoint and scale. */
export function decayLambda(kind: DecayKind, midpoint: number, scale: number): number {
  if (kind === 'lin' ? !(midpoint >= 0 && midpoint <= 1) : !(midpoint > 0 && midpoint < 1)) {
    throw badRequest(kind === 'lin' ? `Validation failed: Linear decay midpoint should be in the range [0.0, 1.0], got ${rustNumber(midpoint)}.` : `Validation failed: Decay midpoint should be in the range (0.0, 1.0), got ${rustNumber(midpoint)}.`);
  }
  if (!(scale > 0)) throw badRequest(`Validation failed: Decay scale should be non-zero positive, got ${rustNumber(scale)}.`);
  if (kind === 'lin') return (1 - midpoint) / scale;
  return kind === 'exp' ? Math.log(midpoint) / scale : Math.log(midpoint) / scale ** 2;
}

function decay(kind: DecayKind, x: number, target: number, lambda: number): number {
  const diff = x - target;
  if (kind === 'exp') return Math.exp(lambda * Math.abs(diff));
  if (kind === 'gauss') return Math.exp(lambda * diff * diff);
  return Math.max(1 - lambda * Math.abs(diff), 0);
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** A geo point {lon, lat} in range (as Qdrant reads one in a formula), or the reason it is not one. */
export function readGeoPoint(v: unknown): GeoPoint | string {
  if (!isObject(v)) return 'expected a geo point {"lon", "lat"}';
  for (const k of ['lon', 'lat'] as const) if (!(k in v)) return `missing field \`${k}\``;
  const { lon, lat } = v;
  if (typeof lon !== 'number' || typeof lat !== 'number') return 'lon and lat must be numbers';
  if (lon < -180 || lon > 180) return `Wrong longitude: ${lon}`;
  if (lat < -90 || lat > 90) return `Wrong latitude: ${lat}`;
  return { lat, lon };
}

/** Seconds since the epoch of a date-time string (RFC 3339, or a date, as Qdrant's datetime payload reads them), or null. */
export function epochSeconds(v: unknown): number | null {
  const ms = instantOf(v);
  return ms === null ? null : ms / 1000;
}

/** The points' scores by a formula: one evaluator per query, reading the prefetches' scores by slot. */
export function formulaScorer(c: Collection, formula: Formula, prefetchScores: Map<number, number>[]): (slot: number) => number {
  /** The value at a variable: as Qdrant reads it, an array (not written `[]`) flattened; one value, else all of them as an array. */
  const valueOf = (v: PayloadVariable, slot: number): unknown => {
    const found = valuesAtPath(c.store.payloads[slot] ?? {}, v.path);
    const values = v.path[v.path.length - 1] === 'all' ? found : found.flatMap((x) => (Array.isArray(x) ? x : [x]));
    if (values.length === 0) {
      const key = pathKey(v.path);
      if (!formula.payloadDefaults.has(key)) return undefined;
      return formula.payloadDefaults.get(key);
    }
    return values.length === 1 ? values[0] : values;
  };
  const read = <T>(v: PayloadVariable, slot: number, expected: string, parse: (value: unknown) => T | string): T => {
    const value = valueOf(v, slot);
    if (value === undefined) throw variableError(v, expected, 'No value found in a payload nor defaults');
    const parsed = parse(value);
    if (typeof parsed === 'string') throw variableError(v, expected, parsed);
    return parsed;
  };
  const number = (value: unknown): number | string => (typeof value === 'number' ? value : 'Value is not a number');
  const datetime = (value: unknown): number | string => {
    if (typeof value !== 'string') return 'Value is not a string';
    return epochSeconds(value) ?? `${JSON.stringify(value)} is not a date-time`;
  };
  const checked = (value: number, expression: () => string): number => {
    if (Number.isFinite(value)) return value;
    throw nonFinite(expression());
  };

  const evaluate = (e: Expression, slot: number): number => {
    switch (e.op) {
      case 'constant':
        return e.value;
      case 'score':
        return prefetchScores[e.prefetch]?.get(slot) ?? formula.scoreDefaults.get(e.prefetch) ?? 0;
      case 'payload':
        return read(e.variable, slot, 'number', number);
      case 'condition':
        return matchesFilter(e.filter, c, slot) ? 1 : 0;
      case 'geo_distance':
        return haversineMetres(e.origin, read(e.to, slot, 'geo point', readGeoPoint));
      case 'datetime':
        return e.seconds;
      case 'datetime_key':
        return read(e.variable, slot, 'datetime', datetime);
      case 'mult': {
        let product = 1;
        for (const arg of e.args) {
          const v = evaluate(arg, slot);
          // Qdrant stops at a zero factor: what follows is not evaluated.
          if (v === 0) return 0;
          product *= v;
        }
        return product;
      }
      case 'sum':
        return e.args.reduce((sum, arg) => sum + evaluate(arg, slot), 0);
      case 'neg':
        return -evaluate(e.arg, slot);
      case 'abs':
        return Math.abs(evaluate(e.arg, slot));
      case 'div': {
        const left = evaluate(e.left, slot);
        if (left === 0) return 0;
        const right = evaluate(e.right, slot);
        if (right === 0 && e.byZeroDefault !== null) return e.byZeroDefault;
        return checked(left / right, () => `${rustNumber(left)}/${rustNumber(right)} = ${rustNumber(left / right)}`);
      }
      case 'sqrt': {
        const v = evaluate(e.arg, slot);
        return checked(Math.sqrt(v), () => `√${rustNumber(v)} = ${rustNumber(Math.sqrt(v))}`);
      }
      case 'pow': {
        const base = evaluate(e.base, slot);
        const exponent = evaluate(e.exponent, slot);
        const power = base ** exponent;
        return checked(power, () => `${rustNumber(base)}^${rustNumber(exponent)} = ${rustNumber(power)}`);
      }
      case 'exp':
      case 'log10':
      case 'ln': {
        const v = evaluate(e.arg, slot);
        const r = e.op === 'exp' ? Math.exp(v) : e.op === 'log10' ? Math.log10(v) : Math.log(v);
        return checked(r, () => `${e.op}(${rustNumber(v)}) = ${rustNumber(r)}`);
      }
      case 'decay':
        return decay(e.kind, evaluate(e.x, slot), e.target ? evaluate(e.target, slot) : 0, e.lambda);
    }
  };

  return (slot) => {
    const score = evaluate(formula.expression, slot);
    const single = Math.fround(score);
    if (!Number.isFinite(single)) throw nonFinite(`${rustNumber(score)} as f32 = ${rustNumber(single)}`);
    return shortestSingle(single);
  };
}

/**
 * A 32-bit float as Qdrant's JSON writes it (the shortest decimal that reads back as that
 * float), read as a number: what a client of Qdrant receives for the score.
 */
function shortestSingle(x: number): number {
  for (let digits = 1; digits < 17; digits++) {
    const candidate = Number(x.toPrecision(digits));
    if (Math.fround(candidate) === x) return candidate;
  }
  return x;
}
