/**
 * Limits checked before an entry is logged, so that every logged entry applies. Each names the
 * SERVICE_* variable that raises it (server/config.ts).
 */
export interface WriteLimits {
  /** Levels of objects and arrays in one payload, the payload object itself being level 1. */
  maxPayloadDepth: number;
  /** Bytes of one payload written as UTF-8 JSON. */
  maxPayloadBytes: number;
  /** Points one collection may hold. */
  maxPointsPerCollection: number;
  /** Collections one database may hold. */
  maxCollections: number;
}

/**
 * serde_json (Qdrant) stops at 128 levels; 64 is far beyond any real payload. HTTP bodies may nest
 * a few levels more than this ceiling (query/api/body-nesting.ts MAX_BODY_NESTING), so a payload the
 * limit allows always fits in an upsert, and the same limit holds by HTTP and by import.
 */
export const MAX_PAYLOAD_DEPTH_CEILING = 250;
/** Slots are int32 in the id map. */
export const MAX_POINTS_CEILING = 2 ** 31 - 1;
export const MAX_COLLECTIONS_CEILING = 10_000_000;

export const DEFAULT_WRITE_LIMITS: WriteLimits = Object.freeze({
  maxPayloadDepth: 64,
  maxPayloadBytes: 1024 * 1024,
  maxPointsPerCollection: 100_000_000,
  maxCollections: 100_000,
});

/** The variable that raises each limit, for error messages. */
export const LIMIT_VARIABLES: Readonly<Record<keyof WriteLimits, string>> = Object.freeze({
  maxPayloadDepth: 'SERVICE_MAX_PAYLOAD_DEPTH',
  maxPayloadBytes: 'SERVICE_MAX_PAYLOAD_BYTES',
  maxPointsPerCollection: 'SERVICE_MAX_POINTS_PER_COLLECTION',
  maxCollections: 'SERVICE_MAX_COLLECTIONS',
});
