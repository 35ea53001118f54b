import { parentPort } from 'node:worker_threads';
import { parseJsonBytes } from '../query/api/json-bytes.js';
import { packVectors } from '../query/api/packed-vectors.js';
import { nestingProblem } from '../query/api/body-nesting.js';
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
    // Refused here as the checks would refuse it: the answer's structured clone recurses, and a
    // body thousands of levels deep overflowed the request thread's stack as it arrived.
    const tooDeep = nestingProblem(body);
    answer = tooDeep ? { id, error: tooDeep, kind: 'refused' } : { id, body };
  } catch (err) {
    answer = { id, error: (err as Error).message, kind: err instanceof SyntaxError ? 'syntax' : 'failed' };
  }
  try {
    port.postMessage(answer, 'body' in answer ? transfer : []);
  } catch (err) {
    port.postMessage({ id, error: `the parsed body could not be sent back: ${(err as Error).message}`, kind: 'failed' } satisfies JsonParseAnswer);
  }
});
