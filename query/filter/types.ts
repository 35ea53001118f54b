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
  | (Keyed & { kind: 'match_text'; tokens: string[] })
  | (Keyed & Bounds & { kind: 'values_count' })
  /** Some element of the array at key (an object) satisfies the filter, read from the element. */
  | (Keyed & { kind: 'nested_array'; filter: Filter })
  | (Keyed & { kind: 'is_empty' })
  | (Keyed & { kind: 'is_null' })
  | { kind: 'has_id'; ids: Set<PointId> }
  /** The point has the vector of that name ("" the unnamed one). */
  | { kind: 'has_vector'; name: string }
  | { kind: 'nested'; filter: Filter };
