import { parentPort } from 'node:worker_threads';
import { parse } from '@hapi/bourne';
import { packVectors } from '../query/api/packed-vectors.js';
import type { JsonParseAnswer, JsonParseRequest } from './json-parse-messages.js';

/**
 * A JSON parser thread (json-parsers.ts): decodes a request body's bytes as UTF-8 (a byte order
 * mark dropped), parses them as koa-body does (@hapi/bourne, a `__proto__` key refused), packs
 * the body's vectors (packed-vectors.ts) and answers the body with their buffers transferred.
 */
const port = parentPort!;
const utf8 = new TextDecoder('utf-8');

port.on('message', ({ id, bytes }: JsonParseRequest) => {
  let answer: JsonParseAnswer;
  let transfer: ArrayBuffer[] = [];
  try {
    const body: unknown = parse(utf8.decode(bytes), { protoAction: 'error' });
    transfer = packVectors(body);
    answer = { id, body };
  } catch (err) {
    answer = { id, error: (err as Error).message, syntax: err instanceof SyntaxError };
  }
  port.postMessage(answer, transfer);
});
