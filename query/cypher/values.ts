import { comparePointIds, type PointId } from '../../storage/point-id.js';
import { compareTemporal, orderTemporal, temporalEquals } from './temporal/compare.js';
import { formatTemporal } from './temporal/format.js';
import { isTemporal, temporalTypeName, type TemporalOrDuration } from './temporal/types.js';
import { compareNumbers, isNumber, numberOf, WholeFloat, type CypherNumber } from './numbers.js';
import { CypherPoint, pointEquals } from './spatial/point.js';
import { bytesToHex } from './bytes.js';

/** Runtime values of the Cypher engine and openCypher's equality, comparison and ordering rules. */

export class NodeRef {
  constructor(readonly id: PointId) {}
}

export class RelRef {
  constructor(readonly id: number) {}
}

/**
 * A node a procedure makes up (db.schema.visualization, apoc.meta.graph): one label, its
 * properties carried with it. It is in no store: its id is negative, as Neo4j's virtual nodes'
 * are, no MATCH finds it and no clause writes it.
 */
export class VirtualNode {
  constructor(
    readonly id: number,
    readonly labels: readonly string[],
    readonly properties: MapValue,
  ) {}
}

/** A relationship between virtual nodes, made up as they are. */
export class VirtualRel {
  constructor(
    readonly id: number,
    readonly type: string,
    readonly start: VirtualNode,
    readonly end: VirtualNode,
    readonly properties: MapValue,
  ) {}
}

/** A node or relationship, stored or virtual. */
export const isEntity = (v: Value): v is NodeRef | RelRef | VirtualNode | VirtualRel => v instanceof NodeRef || v instanceof RelRef || v instanceof VirtualNode || v instanceof VirtualRel;

/** A path: node ids, and the relationship ids between them (nodes.length === rels.length + 1). */
export class PathValue {
  constructor(readonly nodes: readonly PointId[], readonly rels: readonly number[]) {}
}

export interface MapValue {
  [key: string]: Value;
}

/** A byte array is a Uint8Array (Bolt's bytes; stored as base64 text). */
export type Value = null | boolean | number | bigint | WholeFloat | string | Value[] | NodeRef | RelRef | VirtualNode | VirtualRel | PathValue | TemporalOrDuration | CypherPoint | Uint8Array | MapValue;

export const isMap = (v: Value): v is MapValue =>
  v !== null && typeof v === 'object' && !Array.isArray(v) && !(v instanceof NodeRef) && !(v instanceof RelRef) && !(v instanceof VirtualNode) && !(v instanceof VirtualRel) && !(v instanceof PathValue) && !(v instanceof WholeFloat) && !isTemporal(v) && !(v instanceof CypherPoint) && !(v instanceof Uint8Array);

/** The openCypher type name of a value, for error messages. */
export function typeName(v: Value): string {
  if (v === null) return 'Null';
  if (typeof v === 'boolean') return 'Boolean';
  if (typeof v === 'number') return Number.isInteger(v) ? 'Integer' : 'Float';
  if (typeof v === 'bigint') return 'Integer';
  if (v instanceof WholeFloat) return 'Float';
  if (typeof v === 'string') return 'String';
  if (Array.isArray(v)) return 'List';
  if (v instanceof NodeRef || v instanceof VirtualNode) return 'Node';
  if (v instanceof RelRef || v instanceof VirtualRel) return 'Relationship';
  if (v instanceof PathValue) return 'Path';
  if (isTemporal(v)) return temporalTypeName(v);
  if (v instanceof CypherPoint) return 'Point';
  if (v instanceof Uint8Array) return 'ByteArray';
  return 'Map';
}

/** `a = b` with three-valued logic: null when either side (or an element) is null. */
export function equals(a: Value, b: Value): boolean | null {
  if (a === null || b === null) return null;
  if (isNumber(a) && isNumber(b)) return compareNumbers(a, b) === 0;
  if (isNumber(a) || isNumber(b)) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    let unknown = false;
    for (let i = 0; i < a.length; i++) {
      const e = equals(a[i]!, b[i]!);
      if (e === false) return false;
      if (e === null) unknown = true;
    }
    return unknown ? null : true;
  }
  if (a instanceof NodeRef) return b instanceof NodeRef && a.id === b.id;
  if (a instanceof RelRef) return b instanceof RelRef && a.id === b.id;
  if (a instanceof VirtualNode) return b instanceof VirtualNode && a.id === b.id;
  if (a instanceof VirtualRel) return b instanceof VirtualRel && a.id === b.id;
  if (a instanceof PathValue) return b instanceof PathValue && sameList(a.nodes, b.nodes) && sameList(a.rels, b.rels);
  if (isTemporal(a)) return isTemporal(b) && temporalEquals(a, b);
  if (a instanceof CypherPoint) return b instanceof CypherPoint && pointEquals(a, b);
  if (a instanceof Uint8Array) return b instanceof Uint8Array && a.length === b.length && a.every((x, i) => x === b[i]);
  if (isMap(a)) {
    if (!isMap(b)) return false;
    const keys = Object.keys(a);
    if (keys.length !== Object.keys(b).length) return false;
    let unknown = false;
    for (const k of keys) {
      if (!Object.hasOwn(b, k)) return false;
      const e = equals(a[k]!, b[k]!);
      if (e === false) return false;
      if (e === null) unknown = true;
    }
    return unknown ? null : true;
  }
  return a === b;
}

const sameList = <T>(a: readonly T[], b: readonly T[]) => a.length === b.length && a.every((x, i) => x === b[i]);

/**
 * `a < b` and friends: negative, zero or positive, or null when the values are not comparable;
 * NaN against a number answers NaN, so that every ordering comparison with it is false.
 */
export function compare(a: Value, b: Value): number | null {
  if (a === null || b === null) return null;
  if (isNumber(a) && isNumber(b)) return compareNumbers(a, b);
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === 'boolean' && typeof b === 'boolean') return Number(a) - Number(b);
  if (isTemporal(a) && isTemporal(b)) return compareTemporal(a, b);
  if (Array.isArray(a) && Array.isArray(b)) {
    for (let i = 0; i < Math.min(a.length, b.length); i++) {
      const c = compare(a[i]!, b[i]!);
      if (c === null) return null;
      if (c !== 0) return c;
    }
    return a.length - b.length;
  }
  return null;
}

/**
 * ORDER BY's global order: map < node < relationship < list < byte array < path < point <
 * temporal values (datetime, local datetime, date, time, local time, duration) < string <
 * boolean < number < null.
 */
const RANK = (v: Value): number => {
  if (v === null) return 8;
  if (isNumber(v)) return 7;
  if (typeof v === 'boolean') return 6;
  if (typeof v === 'string') return 5;
  if (isTemporal(v)) return 4.5;
  if (v instanceof CypherPoint) return 4.25;
  if (v instanceof PathValue) return 4;
  if (v instanceof Uint8Array) return 3.5;
  if (Array.isArray(v)) return 3;
  if (v instanceof RelRef || v instanceof VirtualRel) return 2;
  if (v instanceof NodeRef || v instanceof VirtualNode) return 1;
  return 0;
};

/** A total order over all values (ORDER BY, min/max over mixed types). */
export function orderCompare(a: Value, b: Value): number {
  const ra = RANK(a);
  const rb = RANK(b);
  if (ra !== rb) return ra - rb;
  switch (ra) {
    case 7: {
      const x = numberOf(a as CypherNumber);
      const y = numberOf(b as CypherNumber);
      if (Number.isNaN(x) || Number.isNaN(y)) return Number(Number.isNaN(x)) - Number(Number.isNaN(y));
      return compareNumbers(a as CypherNumber, b as CypherNumber);
    }
    case 6:
      return Number(a) - Number(b);
    case 5:
      return (a as string) < (b as string) ? -1 : (a as string) > (b as string) ? 1 : 0;
    case 4.5:
      return orderTemporal(a as TemporalOrDuration, b as TemporalOrDuration);
    case 4.25: {
      const [p, q] = [a as CypherPoint, b as CypherPoint];
      return p.srid - q.srid || p.x - q.x || p.y - q.y || (p.z ?? 0) - (q.z ?? 0);
    }
    case 3.5:
      return orderLists([...(a as Uint8Array)], [...(b as Uint8Array)]);
    case 4:
      return orderLists([...(a as PathValue).nodes], [...(b as PathValue).nodes]) || orderLists([...(a as PathValue).rels], [...(b as PathValue).rels]);
    case 3:
      return orderLists(a as Value[], b as Value[]);
    case 2:
    case 1:
      return comparePointIds((a as NodeRef | VirtualNode).id, (b as NodeRef | VirtualNode).id);
    case 0: {
      const ka = Object.keys(a as MapValue).sort();
      const kb = Object.keys(b as MapValue).sort();
      return orderLists(ka, kb) || orderLists(ka.map((k) => (a as MapValue)[k]!), kb.map((k) => (b as MapValue)[k]!));
    }
    default:
      return 0;
  }
}

function orderLists(a: Value[], b: Value[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const c = orderCompare(a[i]!, b[i]!);
    if (c !== 0) return c;
  }
  return a.length - b.length;
}

/**
 * A string that is equal for equivalent values (DISTINCT, grouping keys, count(DISTINCT)):
 * null is equivalent to null, and 1 to 1.0.
 */
export function keyOf(v: Value): string {
  if (v === null) return 'n';
  switch (typeof v) {
    case 'boolean':
      return v ? 'T' : 'F';
    case 'number':
      return 'd' + (Object.is(v, -0) ? '0' : String(v));
    case 'string':
      return 's' + JSON.stringify(v);
    case 'bigint':
      return 'd' + String(v);
  }
  if (v instanceof WholeFloat) return 'd' + (Object.is(v.value, -0) ? '0' : String(v.value));
  if (Array.isArray(v)) return '[' + v.map(keyOf).join(',') + ']';
  if (v instanceof NodeRef) return 'N' + v.id;
  if (v instanceof RelRef) return 'R' + v.id;
  if (v instanceof VirtualNode) return 'N' + v.id;
  if (v instanceof VirtualRel) return 'R' + v.id;
  if (v instanceof PathValue) return 'P' + v.nodes.join('.') + '/' + v.rels.join('.');
  if (isTemporal(v)) return 't' + v.kind + formatTemporal(v);
  if (v instanceof CypherPoint) return `p${v.srid}:${v.x}:${v.y}:${v.z}`;
  if (v instanceof Uint8Array) return 'b' + bytesToHex(v);
  return '{' + Object.keys(v).sort().map((k) => JSON.stringify(k) + ':' + keyOf(v[k]!)).join(',') + '}';
}

/** A JSON value (payload, parameter) as a Cypher value: objects become maps. */
export function fromJson(v: unknown): Value {
  if (v === undefined) return null;
  return v as Value;
}

/** A map's, payload's or row's own entry: never one its prototype lends (`constructor`, `toString`). */
export function ownEntry<T>(m: Record<string, T>, key: string): T | undefined {
  return Object.hasOwn(m, key) ? m[key] : undefined;
}

/** Sets an own entry, `__proto__` included (plain assignment would change the prototype instead). */
export function setEntry<T>(m: Record<string, T>, key: string, value: NoInfer<T>): void {
  if (key === '__proto__') Object.defineProperty(m, key, { value, enumerable: true, writable: true, configurable: true });
  else m[key] = value;
}
