import { badRequest } from '../../storage/errors.js';
import type { GeoArea, GeoPoint } from './types.js';

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** An object holding exactly `fields` (those after `optional` may be absent or null), else a 400 naming what is wrong. */
function fieldsOf(raw: unknown, where: string, fields: readonly string[], optional: readonly string[] = []): Record<string, unknown> {
  const all = [...fields, ...optional];
  if (!isObject(raw)) throw badRequest(`${where} must be an object with ${all.join(', ')}`);
  for (const name of Object.keys(raw)) if (!all.includes(name)) throw badRequest(`${where}.${name} is not a field of ${where} (${all.join(', ')})`);
  for (const name of fields) if (raw[name] === undefined || raw[name] === null) throw badRequest(`${where}.${name} is required`);
  return raw;
}

/** A point {lat, lon} in degrees, refused outside [-90, 90] × [-180, 180] in Qdrant's words. */
function parsePoint(raw: unknown, where: string): GeoPoint {
  const { lat, lon } = fieldsOf(raw, where, ['lat', 'lon']);
  if (typeof lat !== 'number' || typeof lon !== 'number') throw badRequest(`${where}: lat and lon must be numbers (degrees)`);
  if (!(lat >= -90 && lat <= 90 && lon >= -180 && lon <= 180)) throw badRequest(`${where}: Wrong format of GeoPoint payload: expected \`lat\` = ${lat} within [-90;90] and \`lon\` = ${lon} within [-180;180]`);
  return { lat, lon };
}

/** A polygon's ring: {points: [...]}, four points at least, the last the first again (Qdrant's checks and words). */
function parseRing(raw: unknown, where: string): GeoPoint[] {
  const { points } = fieldsOf(raw, where, ['points']);
  if (!Array.isArray(points)) throw badRequest(`${where}.points must be an array of {lat, lon}`);
  const ring = points.map((p, i) => parsePoint(p, `${where}.points[${i}]`));
  if (ring.length < 4) throw badRequest(`${where}: polygon invalid, the size must be at least 4, got ${ring.length}`);
  const first = ring[0]!;
  const last = ring[ring.length - 1]!;
  if (Math.abs(first.lat - last.lat) > Number.EPSILON || Math.abs(first.lon - last.lon) > Number.EPSILON) {
    throw badRequest(`${where}: polygon invalid, the first and the last points should be the same to form a closed line`);
  }
  return ring;
}

/** A condition's geo area (geo_radius, geo_bounding_box or geo_polygon beside its key), or null when it has none. */
export function parseGeo(raw: Record<string, unknown>, where: string): GeoArea | null {
  if ('geo_radius' in raw) {
    const at = `${where}.geo_radius`;
    const { center, radius } = fieldsOf(raw.geo_radius, at, ['center', 'radius']);
    if (typeof radius !== 'number' || !Number.isFinite(radius)) throw badRequest(`${at}.radius must be a number (metres)`);
    return { shape: 'radius', center: parsePoint(center, `${at}.center`), radius };
  }
  if ('geo_bounding_box' in raw) {
    const at = `${where}.geo_bounding_box`;
    const box = fieldsOf(raw.geo_bounding_box, at, ['top_left', 'bottom_right']);
    return { shape: 'box', topLeft: parsePoint(box.top_left, `${at}.top_left`), bottomRight: parsePoint(box.bottom_right, `${at}.bottom_right`) };
  }
  if ('geo_polygon' in raw) {
    const at = `${where}.geo_polygon`;
    const polygon = fieldsOf(raw.geo_polygon, at, ['exterior'], ['interiors']);
    const { interiors } = polygon;
    if (interiors !== undefined && interiors !== null && !Array.isArray(interiors)) throw badRequest(`${at}.interiors must be an array of rings {points: [...]}`);
    return {
      shape: 'polygon',
      exterior: parseRing(polygon.exterior, `${at}.exterior`),
      interiors: (interiors ?? []).map((ring, i) => parseRing(ring, `${at}.interiors[${i}]`)),
    };
  }
  return null;
}
