import { gunzipSync, inflateSync } from 'node:zlib';
import { GrpcError, GrpcStatus } from './status.js';

/** The 5-byte prefix of a gRPC message: a compressed flag, then the length (big-endian). */
const PREFIX = 5;

/**
 * The one message of a unary call's request body, uncompressed. A body holding no message, part
 * of one or more than one is refused, as is a compression the client did not name.
 */
export function unframe(body: Buffer, encoding: string | undefined): Buffer {
  if (body.length < PREFIX) throw new GrpcError(GrpcStatus.INVALID_ARGUMENT, 'the request holds no message: a unary call sends exactly one');
  const compressed = body[0];
  const length = body.readUInt32BE(1);
  if (body.length !== PREFIX + length) throw new GrpcError(GrpcStatus.INVALID_ARGUMENT, `the request's message is ${body.length - PREFIX} bytes where its prefix says ${length}: a unary call sends exactly one message`);
  const message = body.subarray(PREFIX);
  if (compressed === 0) return message;
  if (compressed !== 1) throw new GrpcError(GrpcStatus.INTERNAL, `compressed flag ${compressed} is neither 0 nor 1`);
  try {
    if (encoding === 'gzip') return gunzipSync(message);
    if (encoding === 'deflate') return inflateSync(message);
  } catch (err) {
    throw new GrpcError(GrpcStatus.INTERNAL, `the message does not decompress as ${encoding}: ${(err as Error).message}`);
  }
  throw new GrpcError(GrpcStatus.UNIMPLEMENTED, `message compression "${encoding ?? 'none'}" is not supported: send identity, gzip or deflate`);
}

/** One uncompressed message with its prefix. */
export function frame(message: Uint8Array): Buffer {
  const out = Buffer.allocUnsafe(PREFIX + message.length);
  out[0] = 0;
  out.writeUInt32BE(message.length, 1);
  out.set(message, PREFIX);
  return out;
}

/** grpc-message's percent-encoding: printable ASCII but '%' as it is, every other UTF-8 byte as %XX. */
export function encodeGrpcMessage(message: string): string {
  let out = '';
  for (const byte of Buffer.from(message, 'utf8')) out += byte >= 0x20 && byte <= 0x7e && byte !== 0x25 ? String.fromCharCode(byte) : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  return out;
}
