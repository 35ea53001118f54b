/** Bolt's framing: a message travels as chunks (a 2-byte length, then that many bytes) ended by an empty chunk. */

const MAX_CHUNK = 0xffff;

/** Frames one message: its bytes cut into chunks, then the end marker. */
export function chunkMessage(message: Buffer): Buffer {
  const chunks = Math.max(1, Math.ceil(message.length / MAX_CHUNK));
  const out = Buffer.allocUnsafe(message.length + chunks * 2 + 2);
  let at = 0;
  for (let from = 0; from < message.length; from += MAX_CHUNK) {
    const piece = message.subarray(from, from + MAX_CHUNK);
    out.writeUInt16BE(piece.length, at);
    piece.copy(out, at + 2);
    at += piece.length + 2;
  }
  out.writeUInt16BE(0, at);
  return out.subarray(0, at + 2);
}

/**
 * Gathers incoming bytes into whole messages. An end marker with nothing before it is a
 * keep-alive (NOOP) and yields no message. A message over `maxBytes` is refused.
 */
export class Dechunker {
  private pending: Buffer = Buffer.alloc(0);
  private parts: Buffer[] = [];
  private size = 0;

  constructor(private readonly maxBytes: number) {}

  /** The messages the bytes complete, in order. */
  feed(data: Buffer): Buffer[] {
    this.pending = this.pending.length > 0 ? Buffer.concat([this.pending, data]) : data;
    const messages: Buffer[] = [];
    let at = 0;
    while (this.pending.length - at >= 2) {
      const length = this.pending.readUInt16BE(at);
      if (length === 0) {
        at += 2;
        if (this.parts.length > 0) messages.push(Buffer.concat(this.parts));
        this.parts = [];
        this.size = 0;
        continue;
      }
      if (this.pending.length - at < 2 + length) break;
      this.size += length;
      if (this.size > this.maxBytes) throw new Error(`a message larger than ${this.maxBytes} bytes`);
      this.parts.push(Buffer.from(this.pending.subarray(at + 2, at + 2 + length)));
      at += 2 + length;
    }
    this.pending = this.pending.subarray(at);
    return messages;
  }
}
