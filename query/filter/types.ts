import type { PointId } from '../../storage/point-id.js';
import type { Scalar } from '../../storage/views/payload-paths.js';

/**
 * A parsed payload filter (Qdrant's shape): every `must`, at least one `should` when any, no
 * `must_not`, and at least `minCount` of min_should's conditions.
 */
export interface Filter {
  must: Condition[];
  should: Condition[];
  mustNot: Condition[];
  minShould?: { conditions: Condition[]; minCount: number };
}

/** Range bounds: numbers, or RFC 3339 date-times as their instants in milliseconds (then `datetime`). */
export interface Bounds {
  gt?: number;
  gte?: number;
  lt?: number;
  lte?: number;
}

/** A point on the globe in degrees (Qdrant's GeoPoint). */
export interface GeoPoint {
  lat: number;
  lon: number;
}

/**
 * Qdrant's full-text matches: `text` every word, `text_any` one word at least, `phrase` the
 * words adjacent and in order; what they compare depends on the field's text index (text-match.ts).
 */
export type TextMode = 'text' | 'text_any' | 'phrase';

/** Qdrant's geo areas: a circle (radius in metres), a box, a polygon with holes (rings of [lon, lat], closed). */
export type GeoArea =
  | { shape: 'radius'; center: GeoPoint; radius: number }
  | { shape: 'box'; topLeft: GeoPoint; bottomRight: GeoPoint }
  | { shape: 'polygon'; exterior: GeoPoint[]; interiors: GeoPoint[][] };

interface Keyed {
  /** The dotted key as the client wrote it. */
  key: string;
  path: string[];
}

export type Condition =
  | (Keyed & { kind: 'match'; value: Scalar })
  | (Keyed & { kind: 'match_any'; values: Set<Scalar> })
  | (Keyed & { kind: 'match_except'; values: Set<Scalar> })
  | (Keyed & Bounds & { kind: 'range'; datetime: boolean })
  /** `text` as given (a substring without a text index) and its words (with one). */
  | (Keyed & { kind: 'match_text'; mode: TextMode; text: string; tokens: string[] })
  /** A value {lat, lon} at key lies in the area. */
  | (Keyed & { kind: 'geo'; area: GeoArea })
  | (Keyed & Bounds & { kind: 'values_count' })
  /** Some element of the array at key (an object) satisfies the filter, read from the element. */
  | (Keyed & { kind: 'nested_array'; filter: Filter })
  | (Keyed & { kind: 'is_empty' })
  | (Keyed & { kind: 'is_null' })
  | { kind: 'has_id'; ids: Set<PointId> }
  /** The point has the vector of that name ("" the unnamed one). */
  | { kind: 'has_vector'; name: string }
  | { kind: 'nested'; filter: Filter };
