import type { IncomingMessage } from 'node:http';
import { DbError } from '../storage/errors.js';

/**
 * Reads a request body of known length into one buffer of its own, each piece copied into place
 * as it arrives: raw-body keeps the pieces and joins them at the end, a copy of the whole body
 * in one go on the request thread (47 ms for 30 MB). The buffer is the caller's to transfer.
 * Refused as raw-body refuses: past `limit` a 413 (before reading when Content-Length says so),
 * a body that ends short of its length or a client that goes away a 400.
 */
export function readBodyBytes(req: IncomingMessage, length: number, limit: number): Promise<Uint8Array> {
  if (length > limit) {
    req.pause();
    return Promise.reject(new DbError(413, 'request body is too large'));
  }
  return new Promise((resolve, reject) => {
    const bytes = new Uint8Array(length);
    let received = 0;
    function cleanup(): void {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('aborted', onAborted);
      req.off('error', halt);
    }
    function halt(err: Error): void {
      cleanup();
      req.unpipe();
      req.pause();
      reject(err);
    }
    function onData(chunk: Buffer): void {
      if (received + chunk.length > length) return halt(new DbError(400, 'request size did not match content length'));
      bytes.set(chunk, received);
      received += chunk.length;
    }
    function onEnd(): void {
      cleanup();
      if (received !== length) reject(new DbError(400, 'request size did not match content length'));
      else resolve(bytes);
    }
    function onAborted(): void {
      halt(new DbError(400, 'request aborted'));
    }
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('aborted', onAborted);
    req.on('error', halt);
  });
}
