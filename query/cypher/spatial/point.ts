/**
 * Cypher's POINT: a coordinate in one of four coordinate reference systems, as Neo4j has them.
 * Geographic points keep longitude in x and latitude in y (and height in z).
 */
export const CRS = {
  cartesian: { srid: 7203, geographic: false, dims: 2 },
  'cartesian-3d': { srid: 9157, geographic: false, dims: 3 },
  'wgs-84': { srid: 4326, geographic: true, dims: 2 },
  'wgs-84-3d': { srid: 4979, geographic: true, dims: 3 },
} as const;
export type CrsName = keyof typeof CRS;

export class CypherPoint {
  readonly crs: CrsName;
  constructor(
    readonly srid: number,
    readonly x: number,
    readonly y: number,
    readonly z: number | null,
  ) {
    this.crs = crsOf(srid)!;
  }

  get geographic(): boolean {
    return CRS[this.crs].geographic;
  }
}

export function crsOf(srid: number): CrsName | undefined {
  return (Object.keys(CRS) as CrsName[]).find((name) => CRS[name].srid === srid);
}

/** Mean earth radius Neo4j measures WGS-84 distances with, in metres. */
const EARTH_RADIUS = 6378140;

/** The distance between two points of one CRS (metres for WGS-84, by the haversine formula), or null across CRSs. */
export function pointDistance(a: CypherPoint, b: CypherPoint): number | null {
  if (a.srid !== b.srid) return null;
  if (!a.geographic) return Math.hypot(a.x - b.x, a.y - b.y, (a.z ?? 0) - (b.z ?? 0));
  const rad = Math.PI / 180;
  const dLat = (b.y - a.y) * rad;
  const dLon = (b.x - a.x) * rad;
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(a.y * rad) * Math.cos(b.y * rad) * Math.sin(dLon / 2) ** 2;
  const surface = 2 * EARTH_RADIUS * Math.atan2(Math.sqrt(h), Math.sqrt(1 - h));
  return a.z === null ? surface : Math.hypot(surface, (b.z ?? 0) - a.z);
}

/** Whether p lies in the box (edges included); a geographic box whose lower-left longitude is east of its upper-right crosses the date line. Null across CRSs. */
export function withinBox(p: CypherPoint, lowerLeft: CypherPoint, upperRight: CypherPoint): boolean | null {
  if (p.srid !== lowerLeft.srid || p.srid !== upperRight.srid) return null;
  const inY = p.y >= lowerLeft.y && p.y <= upperRight.y;
  const inZ = p.z === null || (p.z >= lowerLeft.z! && p.z <= upperRight.z!);
  const inX = p.geographic && lowerLeft.x > upperRight.x ? p.x >= lowerLeft.x || p.x <= upperRight.x : p.x >= lowerLeft.x && p.x <= upperRight.x;
  return inX && inY && inZ;
}

export const pointEquals = (a: CypherPoint, b: CypherPoint): boolean => a.srid === b.srid && a.x === b.x && a.y === b.y && a.z === b.z;

/** The point as JSON, also its stored form: {lon, lat[, height]} for WGS-84 (Qdrant's geo point), {x, y[, z]} for cartesian. */
export function pointJson(p: CypherPoint): Record<string, number> {
  if (p.geographic) return p.z === null ? { lon: p.x, lat: p.y } : { lon: p.x, lat: p.y, height: p.z };
  return p.z === null ? { x: p.x, y: p.y } : { x: p.x, y: p.y, z: p.z };
}

/** pointJson's inverse; null when the value has not that shape. */
export function pointFromJson(v: unknown): CypherPoint | null {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return null;
  const o = v as Record<string, unknown>;
  const keys = Object.keys(o).sort().join(',');
  const n = (k: string) => (typeof o[k] === 'number' ? (o[k] as number) : NaN);
  const made = (srid: number, x: number, y: number, z: number | null) => ([x, y, z ?? 0].every(Number.isFinite) ? new CypherPoint(srid, x, y, z) : null);
  switch (keys) {
    case 'lat,lon':
      return made(CRS['wgs-84'].srid, n('lon'), n('lat'), null);
    case 'height,lat,lon':
      return made(CRS['wgs-84-3d'].srid, n('lon'), n('lat'), n('height'));
    case 'x,y':
      return made(CRS.cartesian.srid, n('x'), n('y'), null);
    case 'x,y,z':
      return made(CRS['cartesian-3d'].srid, n('x'), n('y'), n('z'));
    default:
      return null;
  }
}
