import { isFloat, isNumber } from './numbers.js';
import { CypherPoint } from './spatial/point.js';
import { isTemporal } from './temporal/types.js';
import { NodeRef, PathValue, RelRef, VirtualNode, VirtualRel, type Value } from './values.js';

/**
 * valueType(): the most precise Cypher type of a value, normalised as Neo4j writes it:
 * "INTEGER NOT NULL", "LIST<STRING NOT NULL | INTEGER NOT NULL> NOT NULL", "LIST<NOTHING> NOT
 * NULL" for an empty list, "NULL" for null. The element types of a list form a union in which a
 * type inside another is absorbed (INTEGER NOT NULL into INTEGER, LIST<NOTHING> into any list).
 */

/** Neo4j's order of types (subtypes first; NOT NULL before the nullable form). */
const ORDER = ['NOTHING', 'NULL', 'BOOLEAN', 'STRING', 'INTEGER', 'FLOAT', 'DATE', 'LOCAL TIME', 'ZONED TIME', 'LOCAL DATETIME', 'ZONED DATETIME', 'DURATION', 'POINT', 'NODE', 'RELATIONSHIP', 'MAP', 'LIST', 'PATH'];

interface CypherType {
  name: string;
  nullable: boolean;
  /** A list's element types (a normalised union). */
  inner?: CypherType[];
}

const TEMPORAL_NAMES: Record<string, string> = { date: 'DATE', localtime: 'LOCAL TIME', time: 'ZONED TIME', localdatetime: 'LOCAL DATETIME', datetime: 'ZONED DATETIME', duration: 'DURATION' };

function typeOf(v: Value): CypherType {
  const of = (name: string): CypherType => ({ name, nullable: false });
  if (v === null) return { name: 'NULL', nullable: true };
  if (typeof v === 'boolean') return of('BOOLEAN');
  if (typeof v === 'string') return of('STRING');
  if (isNumber(v)) return of(isFloat(v) ? 'FLOAT' : 'INTEGER');
  if (Array.isArray(v)) return { name: 'LIST', nullable: false, inner: union(v.map(typeOf)) };
  // A byte array is a list of integers to Neo4j's type system.
  if (v instanceof Uint8Array) return { name: 'LIST', nullable: false, inner: union(v.length ? [of('INTEGER')] : []) };
  if (v instanceof NodeRef || v instanceof VirtualNode) return of('NODE');
  if (v instanceof RelRef || v instanceof VirtualRel) return of('RELATIONSHIP');
  if (v instanceof PathValue) return of('PATH');
  if (v instanceof CypherPoint) return of('POINT');
  if (isTemporal(v)) return of(TEMPORAL_NAMES[v.kind]!);
  return of('MAP');
}

/** Whether every value of `a` is a value of `b`. */
function within(a: CypherType, b: CypherType): boolean {
  if (a.name === 'NOTHING') return true;
  if (a.name === 'NULL') return b.nullable;
  if (a.name !== b.name || (a.nullable && !b.nullable)) return false;
  if (a.name !== 'LIST') return true;
  return a.inner!.every((x) => b.inner!.some((y) => within(x, y)));
}

function compareTypes(a: CypherType, b: CypherType): number {
  const rank = ORDER.indexOf(a.name) - ORDER.indexOf(b.name);
  if (rank !== 0) return rank;
  if (a.name === 'LIST') {
    const [x, y] = [a.inner!, b.inner!];
    if (x.length !== y.length) return x.length - y.length;
    for (let i = 0; i < x.length; i++) {
      const c = compareTypes(x[i]!, y[i]!);
      if (c !== 0) return c;
    }
  }
  return Number(a.nullable) - Number(b.nullable);
}

/** The element types of a list as one normalised union (NOTHING for none). */
function union(types: CypherType[]): CypherType[] {
  const nullable = types.some((t) => t.name === 'NULL');
  let members = types.filter((t) => t.name !== 'NULL');
  if (nullable) members = members.map((t) => ({ ...t, nullable: true }));
  if (members.length === 0) return [nullable ? { name: 'NULL', nullable: true } : { name: 'NOTHING', nullable: false }];
  const kept = members.filter((t, i) => !members.some((u, j) => j !== i && within(t, u) && (!within(u, t) || j < i)));
  return kept.sort(compareTypes);
}

function describe(t: CypherType): string {
  if (t.name === 'NOTHING' || t.name === 'NULL') return t.name;
  const base = t.name === 'LIST' ? `LIST<${t.inner!.map(describe).join(' | ')}>` : t.name;
  return t.nullable ? base : `${base} NOT NULL`;
}

export const valueType = (v: Value): string => describe(typeOf(v));
