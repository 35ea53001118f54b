import { parentPort } from 'node:worker_threads';
import { parseJsonBytes } from '../query/api/json-bytes.js';
import { packVectors } from '../query/api/packed-vectors.js';
import type { JsonParseAnswer, JsonParseRequest } from './json-parse-messages.js';

/**
 * A JSON parser thread (json-parsers.ts): parses a request body's bytes as the request thread
 * does (query/api/json-bytes.ts), packs the body's vectors (packed-vectors.ts) and answers the
 * body with their buffers transferred.
 */
const port = parentPort!;
port.on('message', ({ id, bytes }: JsonParseRequest) => {
  let answer: JsonParseAnswer;
  let transfer: ArrayBuffer[] = [];
  try {
    const body = parseJsonBytes(bytes);
    transfer = packVectors(body);
    answer = { id, body };
  } catch (err) {
    answer = { id, error: (err as Error).message, syntax: err instanceof SyntaxError };
  }
  port.postMessage(answer, transfer);
});
