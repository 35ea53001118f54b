import { MessageChannel, receiveMessageOnPort, type MessagePort } from 'node:worker_threads';
import { pulledSource, type ByteSource } from '../storage/codec/byte-source.js';
import { FRAME_BYTES, type SnapshotOutput } from '../storage/snapshot/snapshot-codec.js';

/** Bytes sent that the replica has not taken yet, at most: beyond it the encoder waits between slices. */
const UNREAD_BYTES = 8 * 2 ** 20;
/** How long the replica sleeps at a time waiting for a piece (it is woken as each is posted). */
const WAIT_MS = 1_000;

/** One message on a state's port: a piece of the snapshot, or its end (with why, when the encoding stopped). */
type StatePiece = { bytes: Uint8Array } | { end: true; error: string | null };

/** What a replica reads its state from: the port its pieces come on, and [0] pieces posted (it waits on it), [1] pieces it has taken. */
export interface StateStream {
  port: MessagePort;
  counts: Int32Array;
}

/** The most a run of held bytes may take (a frame and its header, with room to spare): address space reserved, not memory. */
const HELD_MAX_BYTES = 4 * FRAME_BYTES;

/** A resizable ArrayBuffer (ES2024; Node 20 has it, this project's lib setting does not name it). */
interface ResizableBuffer extends ArrayBuffer {
  resize(byteLength: number): void;
}
const resizable = (maxByteLength: number): ResizableBuffer => new (ArrayBuffer as unknown as new (bytes: number, options: { maxByteLength: number }) => ResizableBuffer)(0, { maxByteLength });

/**
 * The request thread's side of a Cypher replica's state: a snapshot written into it as it is
 * encoded goes to the replica's thread in pieces, which the replica decodes as they come, so
 * neither thread holds the encoded state whole. A frame's header is written only once the frame
 * is (its length and CRC), so the bytes from a place reserved on wait for it: at most a frame.
 * They are copied as they come into one growable buffer (a resizable ArrayBuffer: it grows in
 * place), sent whole once every place in it is filled, so that the replica reads a frame's
 * blocks as views of one buffer and nothing joins a frame's pieces (joining them was 15-20 ms
 * at a time on the request thread). `room` keeps the bytes the replica has not taken under
 * UNREAD_BYTES.
 */
export class StateSender implements SnapshotOutput {
  private readonly channel = new MessageChannel();
  readonly counts = new Int32Array(new SharedArrayBuffer(2 * Int32Array.BYTES_PER_ELEMENT));
  /** Bytes held back from the first place reserved and not yet filled on; null while none is. */
  private held: ResizableBuffer | null = null;
  /** Places in `held` not yet filled. */
  private unfilled = 0;
  /** The size of each piece posted, in order, and how many of them the replica has taken. */
  private readonly sizes: number[] = [];
  private takenPieces = 0;
  private unread = 0;
  /** The most bytes held back and unread at once (tests). */
  mostPending = 0;
  /** Bytes posted so far. */
  sent = 0;

  /** Given to the replica's thread (transfer its port). */
  get stream(): StateStream {
    return { port: this.channel.port2, counts: this.counts };
  }

  append(bytes: Uint8Array): void {
    // Copied: the encoder reuses its buffer. A piece with nothing held goes at once, in a buffer of its own.
    if (this.held) this.hold(bytes.length).set(bytes);
    else this.post({ bytes: new Uint8Array(bytes) }, bytes.length);
    this.notePending();
  }

  reserve(length: number): (bytes: Uint8Array) => void {
    const at = this.held?.byteLength ?? 0;
    this.held ??= resizable(HELD_MAX_BYTES);
    const held = this.held;
    this.hold(length);
    this.unfilled++;
    this.notePending();
    return (bytes) => {
      new Uint8Array(held, at, length).set(bytes);
      if (--this.unfilled === 0) this.flush();
    };
  }

  /** Resolves once the replica has taken enough of what was sent for the encoder to go on, or `given up` answers true (a replica that stopped takes nothing more). */
  async room(givenUp: () => boolean): Promise<void> {
    while (this.pending() - (this.held?.byteLength ?? 0) > UNREAD_BYTES && !givenUp()) await new Promise((r) => setTimeout(r, 1));
  }

  /** Sends the end (null: the state is whole; else why it stopped) and lets the port go. */
  end(error: string | null): void {
    if (error === null && this.unfilled === 0) this.flush();
    this.post({ end: true, error }, 0);
    this.channel.port1.close();
  }

  /** Grows the held buffer by `length` bytes in place; answers them. */
  private hold(length: number): Uint8Array {
    const held = this.held!;
    const at = held.byteLength;
    held.resize(at + length);
    return new Uint8Array(held, at, length);
  }

  /** Posts the held bytes, every place in them filled, as one message (their buffer transferred). */
  private flush(): void {
    const held = this.held;
    if (!held) return;
    this.held = null;
    this.post({ bytes: new Uint8Array(held, 0, held.byteLength) }, held.byteLength);
    this.notePending();
  }

  private post(piece: StatePiece, size: number): void {
    this.channel.port1.postMessage(piece, 'bytes' in piece ? [piece.bytes.buffer as ArrayBuffer] : []);
    this.sizes.push(size);
    this.unread += size;
    this.sent += size;
    Atomics.add(this.counts, 0, 1);
    Atomics.notify(this.counts, 0);
  }

  private notePending(): void {
    this.mostPending = Math.max(this.mostPending, this.pending());
  }

  /** Bytes held back or sent and not yet taken by the replica. */
  private pending(): number {
    for (const taken = Atomics.load(this.counts, 1); this.takenPieces < taken; ) this.unread -= this.sizes[this.takenPieces++]!;
    return this.unread + (this.held?.byteLength ?? 0);
  }
}

/** Thrown in the replica when the request thread stopped sending its state (it says why, and replaces or stops the replica). */
export class StateStoppedError extends Error {
  override name = 'StateStoppedError';
}

/**
 * The replica's side: its state as a source that blocks (Atomics.wait, on the replica's own
 * thread) until each next piece arrives, for decodeSnapshot to read as it decodes.
 */
export function receiveState(stream: StateStream): ByteSource {
  return pulledSource(() => {
    for (;;) {
      const posted = Atomics.load(stream.counts, 0);
      const got = receiveMessageOnPort(stream.port);
      if (got) {
        Atomics.add(stream.counts, 1, 1);
        const piece = got.message as StatePiece;
        if ('bytes' in piece) return piece.bytes;
        stream.port.close();
        if (piece.error !== null) throw new StateStoppedError(`the request thread stopped sending the state: ${piece.error}`);
        return null;
      }
      Atomics.wait(stream.counts, 0, posted, WAIT_MS);
    }
  });
}
