import { nestsDeeperThan } from '../../storage/engine/payload-shape.js';
import { MAX_PAYLOAD_DEPTH_CEILING } from '../../storage/engine/write-limits.js';

/**
 * Deepest nesting of objects and arrays a body may have: the filter schema is recursive, and
 * checking recurses with it. It leaves room for the deepest payload SERVICE_MAX_PAYLOAD_DEPTH may
 * allow inside an upsert (body, points, point, then the payload), so one payload limit holds by
 * HTTP and by import: 256.
 */
export const MAX_BODY_NESTING = MAX_PAYLOAD_DEPTH_CEILING + 6;

/**
 * Why a parsed body nests too deep to be checked, or null. The request thread's checks
 * (check-body.ts) and the parser threads (workers/json-parse-worker.ts) refuse with it alike.
 */
export function nestingProblem(raw: unknown): string | null {
  return nestsDeeperThan(raw, MAX_BODY_NESTING) ? `request body is nested more than ${MAX_BODY_NESTING} levels deep` : null;
}
