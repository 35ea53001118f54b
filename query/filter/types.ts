import type { PointId } from '../../storage/point-id.js';
import type { Scalar } from '../../storage/views/payload-paths.js';

/** A parsed payload filter (Qdrant's shape): every `must`, at least one `should` when any, no `must_not`. */
export interface Filter {
  must: Condition[];
  should: Condition[];
  mustNot: Condition[];
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
  | (Keyed & { kind: 'range'; gt?: number; gte?: number; lt?: number; lte?: number })
  | (Keyed & { kind: 'is_empty' })
  | (Keyed & { kind: 'is_null' })
  | { kind: 'has_id'; ids: Set<PointId> }
  | { kind: 'nested'; filter: Filter };
