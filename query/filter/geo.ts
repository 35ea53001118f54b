import type { GeoArea, GeoPoint } from './types.js';

/** The earth's mean radius in metres (IUGG), the one Qdrant's haversine distance uses. */
export const EARTH_RADIUS_M = 6_371_008.8;

const radians = (degrees: number): number => (degrees * Math.PI) / 180;

/** The great-circle distance in metres between two points (the haversine formula on a sphere). */
export function haversineMetres(a: GeoPoint, b: GeoPoint): number {
  const h = Math.sin(radians(b.lat - a.lat) / 2) ** 2 + Math.cos(radians(a.lat)) * Math.cos(radians(b.lat)) * Math.sin(radians(b.lon - a.lon) / 2) ** 2;
  return 2 * EARTH_RADIUS_M * Math.asin(Math.sqrt(Math.min(1, h)));
}

/** A payload value read as a geo point: an object with numbers lat and lon (their ranges unchecked, as Qdrant reads stored values), else null. */
export function geoPointOf(value: unknown): GeoPoint | null {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return null;
  const { lat, lon } = value as Record<string, unknown>;
  return typeof lat === 'number' && typeof lon === 'number' ? { lat, lon } : null;
}

/** Whether p lies on the segment a–b (as longitude x, latitude y). */
function onSegment(p: GeoPoint, a: GeoPoint, b: GeoPoint): boolean {
  const cross = (b.lon - a.lon) * (p.lat - a.lat) - (b.lat - a.lat) * (p.lon - a.lon);
  if (cross !== 0) return false;
  return Math.min(a.lon, b.lon) <= p.lon && p.lon <= Math.max(a.lon, b.lon) && Math.min(a.lat, b.lat) <= p.lat && p.lat <= Math.max(a.lat, b.lat);
}

/** Where p lies against a closed ring, on the plane of longitude and latitude. */
function ringPosition(p: GeoPoint, ring: readonly GeoPoint[]): 'inside' | 'boundary' | 'outside' {
  let inside = false;
  for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) {
    const a = ring[i]!;
    const b = ring[j]!;
    if (onSegment(p, a, b)) return 'boundary';
    if (a.lat > p.lat !== b.lat > p.lat && p.lon < ((b.lon - a.lon) * (p.lat - a.lat)) / (b.lat - a.lat) + a.lon) inside = !inside;
  }
  return inside ? 'inside' : 'outside';
}

/**
 * Whether a point lies in the area, as Qdrant decides: within a circle when its distance to the
 * centre is below the radius; in a box strictly between its edges (a box whose top-left
 * longitude is east of its bottom-right crosses the antimeridian); in a polygon when inside the
 * exterior ring and outside every hole, a point on any ring not counting (the polygon's
 * interior, on the plane of longitude and latitude).
 */
export function inGeoArea(area: GeoArea, p: GeoPoint): boolean {
  switch (area.shape) {
    case 'radius':
      return haversineMetres(area.center, p) < area.radius;
    case 'box': {
      const { topLeft: tl, bottomRight: br } = area;
      const lonIn = tl.lon > br.lon ? p.lon > tl.lon || p.lon < br.lon : tl.lon < p.lon && p.lon < br.lon;
      return lonIn && br.lat < p.lat && p.lat < tl.lat;
    }
    case 'polygon':
      return ringPosition(p, area.exterior) === 'inside' && area.interiors.every((hole) => ringPosition(p, hole) === 'outside');
  }
}
