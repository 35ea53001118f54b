import type { IncomingMessage } from 'node:http';

/** Bodies handed over with requests made in process, already parsed: the Qdrant gRPC port's calls (qdrant-grpc/rest-dispatch.ts). */
const handed = new WeakMap<IncomingMessage, unknown>();

export function handBody(req: IncomingMessage, body: unknown): void {
  handed.set(req, body);
}

/** The body handed over with `req`; undefined for a request off the network, whose body is read from it. */
export function handedBody(req: IncomingMessage): unknown {
  return handed.get(req);
}
