/** A request body's bytes for a JSON parser thread (json-parse-worker.ts). */
export interface JsonParseRequest {
  id: number;
  bytes: Uint8Array;
}

/**
 * The body parsed, its vectors packed; or why it could not be: `syntax`, the text is not JSON or
 * holds a `__proto__` key; `refused`, it nests deeper than the checks take (a 400 either way);
 * `failed`, anything else (a 500).
 */
export type JsonParseAnswer = { id: number; body: unknown } | { id: number; error: string; kind: 'syntax' | 'refused' | 'failed' };
