import { parse } from '@hapi/bourne';

const utf8 = new TextDecoder('utf-8');

/**
 * A request body's bytes parsed as koa-body parses JSON: decoded as UTF-8 (a byte order mark
 * dropped), then @hapi/bourne's parse, which refuses a `__proto__` key. Throws the SyntaxError
 * of the first fault. Shared by the request thread (server/middleware/json-body.ts) and the
 * parser threads (workers/json-parse-worker.ts), so both take and refuse the same bodies.
 */
export function parseJsonBytes(bytes: Uint8Array): unknown {
  return parse(utf8.decode(bytes), { protoAction: 'error' });
}
