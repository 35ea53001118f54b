import { runtimeError } from '../errors.js';
import type { FunctionDef } from '../functions.js';
import { float, floatText, isNumber, numberOf } from '../numbers.js';
import { isMap, ownEntry, typeName, type Value } from '../values.js';
import { CRS, crsOf, CypherPoint, pointDistance, withinBox, type CrsName } from './point.js';

/** point(), point.distance() and point.withinBBox(), and a point's components, as Neo4j 5 has them. */

const badArg = (fn: string, v: Value) => runtimeError('TypeError', 'InvalidArgumentType', `${fn}() cannot take a ${typeName(v)}`);
const badValue = (message: string) => runtimeError('ArgumentError', 'InvalidArgumentValue', message);

const POINT_KEYS = new Set(['x', 'y', 'z', 'longitude', 'latitude', 'height', 'crs', 'srid']);

/** point({x, y[, z]}) or point({longitude, latitude[, height]}), with an optional crs or srid that must agree. */
export function pointFromMap(map: Record<string, Value>): CypherPoint | null {
  for (const key of Object.keys(map)) if (!POINT_KEYS.has(key.toLowerCase())) throw badValue(`point() does not know the key "${key}" (it takes x, y, z or longitude, latitude, height, and crs or srid)`);
  const get = (k: string): Value | undefined => ownEntry(map, Object.keys(map).find((key) => key.toLowerCase() === k) ?? k);
  const geographic = get('longitude') !== undefined || get('latitude') !== undefined;
  const [xk, yk, zk] = geographic ? ['longitude', 'latitude', 'height'] : ['x', 'y', 'z'];
  const coords = [get(xk), get(yk), get(zk)];
  if (coords.slice(0, 2).some((c) => c === undefined)) throw badValue(`point() needs ${xk} and ${yk}`);
  if (coords.some((c) => c === null)) return null;
  for (const c of coords) if (c !== undefined && !isNumber(c)) throw badArg('point', c);
  const [x, y, z] = coords.map((c) => (c === undefined ? null : numberOf(c as number)));
  const dims = z === null ? 2 : 3;
  const named = get('crs');
  const srid = get('srid');
  let crs: CrsName | undefined;
  if (named !== undefined && named !== null) {
    if (typeof named !== 'string' || !Object.hasOwn(CRS, named.toLowerCase())) throw badValue(`point() does not know the crs ${JSON.stringify(named)} (cartesian, cartesian-3d, wgs-84, wgs-84-3d)`);
    crs = named.toLowerCase() as CrsName;
  } else if (srid !== undefined && srid !== null) {
    crs = typeof srid === 'number' ? crsOf(srid) : undefined;
    if (crs === undefined) throw badValue(`point() does not know the srid ${String(srid)} (7203, 9157, 4326, 4979)`);
  } else crs = geographic ? (dims === 3 ? 'wgs-84-3d' : 'wgs-84') : dims === 3 ? 'cartesian-3d' : 'cartesian';
  if (CRS[crs].dims !== dims) throw badValue(`a ${crs} point has ${CRS[crs].dims} coordinates, got ${dims}`);
  if (geographic && !CRS[crs].geographic) throw badValue(`longitude and latitude make a geographic point, not a ${crs} one`);
  if (CRS[crs].geographic && (y! < -90 || y! > 90)) throw badValue(`a WGS-84 latitude lies between -90 and 90, got ${y}`);
  return new CypherPoint(CRS[crs].srid, x!, y!, z);
}

/** A component of a point (`p.x`, `p.latitude`, `p.crs`...), or undefined when it has none by that name. */
export function pointComponent(p: CypherPoint, key: string): Value | undefined {
  switch (key.toLowerCase()) {
    case 'x':
      return float(p.x);
    case 'y':
      return float(p.y);
    case 'z':
      return p.z === null ? undefined : float(p.z);
    case 'longitude':
      return p.geographic ? float(p.x) : undefined;
    case 'latitude':
      return p.geographic ? float(p.y) : undefined;
    case 'height':
      return p.geographic && p.z !== null ? float(p.z) : undefined;
    case 'crs':
      return p.crs;
    case 'srid':
      return p.srid;
    default:
      return undefined;
  }
}

/** toString(point): Neo4j's text, `point({x: 1.0, y: 2.0, crs: 'cartesian'})`. */
export function pointText(p: CypherPoint): string {
  const [x, y, z] = p.geographic ? ['longitude', 'latitude', 'height'] : ['x', 'y', 'z'];
  const parts = [`${x}: ${floatText(p.x)}`, `${y}: ${floatText(p.y)}`];
  if (p.z !== null) parts.push(`${z}: ${floatText(p.z)}`);
  return `point({${parts.join(', ')}, crs: '${p.crs}'})`;
}

const points = (fn: string, args: Value[]): CypherPoint[] | null => {
  if (args.some((a) => a === null)) return null;
  for (const a of args) if (!(a instanceof CypherPoint)) throw badArg(fn, a);
  return args as CypherPoint[];
};

export const SPATIAL_FUNCTIONS: Record<string, FunctionDef> = {
  point: {
    minArgs: 1,
    maxArgs: 1,
    call: ([m]) => {
      if (m === null || m === undefined) return null;
      if (!isMap(m)) throw badArg('point', m);
      return pointFromMap(m);
    },
  },
  'point.distance': {
    minArgs: 2,
    maxArgs: 2,
    call: (args) => {
      const p = points('point.distance', args);
      const d = p && pointDistance(p[0]!, p[1]!);
      return d === null || d === undefined ? null : float(d);
    },
  },
  'point.withinbbox': {
    minArgs: 3,
    maxArgs: 3,
    call: (args) => {
      const p = points('point.withinBBox', args);
      return p && withinBox(p[0]!, p[1]!, p[2]!);
    },
  },
};
