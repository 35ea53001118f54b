import { ByteReader } from '../codec/byte-reader.js';
import { crc32 } from '../codec/crc32.js';
import { CorruptDataError } from '../errors.js';
import { BLOCK_HEADER } from '../export/format.js';
import {
  COLLECTION_BLOCK,
  FRAME_BYTES,
  HEAD_BYTES,
  LAST_FRAME,
  PART_FRAME,
  readSnapshotHead,
  SNAPSHOT_FRAMES,
  TRAILER_BLOCK,
  TRAILER_BYTES,
  type SnapshotHead,
} from './snapshot-codec.js';

/**
 * Checks a snapshot's bytes as they arrive, in pieces of any size, keeping none of them: its
 * header, every frame's (or, before version 6, every collection block's) length and CRC, and the
 * trailer against the header, as decodeSnapshot checks them before it decodes a byte. A replica
 * runs it over the primary's snapshot while writing it to its file, so that memory holds a few
 * dozen bytes of it rather than the snapshot and the state decoded from it. It checks the bytes,
 * not what they mean: start-up decodes them.
 */
export class SnapshotFrameCheck {
  /** The header, a block's header or the trailer's payload, gathered across pieces. */
  private readonly staged = new Uint8Array(HEAD_BYTES);
  private stagedBytes = 0;
  private head: SnapshotHead | null = null;
  private phase: 'head' | 'block header' | 'payload' | 'done' = 'head';
  private collectionsDone = 0;
  /** The frame of the current collection being read: its CRC starts from this index. */
  private frame = 0;
  private type = 0;
  private remaining = 0;
  private expectedCrc = 0;
  private crc = 0;
  /** Bytes fed so far, for messages. */
  private at = 0;

  /** Checks the next bytes; throws CorruptDataError at the first that is wrong. */
  feed(bytes: Uint8Array): void {
    for (let i = 0; i < bytes.length; ) {
      if (this.phase === 'done') throw new CorruptDataError(`unexpected bytes after the snapshot trailer, at byte ${this.at + i}`);
      if (this.phase === 'payload') {
        const n = Math.min(this.remaining, bytes.length - i);
        this.crc = crc32(bytes, i, i + n, this.crc);
        if (this.type === TRAILER_BLOCK) this.stage(bytes, i, n);
        i += n;
        this.remaining -= n;
        if (this.remaining === 0) this.endPayload();
        continue;
      }
      const want = this.phase === 'head' ? HEAD_BYTES : BLOCK_HEADER;
      const n = Math.min(want - this.stagedBytes, bytes.length - i);
      this.stage(bytes, i, n);
      i += n;
      if (this.stagedBytes < want) continue;
      this.stagedBytes = 0;
      if (this.phase === 'head') {
        this.head = readSnapshotHead(this.staged);
        this.phase = 'block header';
      } else this.startBlock();
    }
    this.at += bytes.length;
  }

  /** The snapshot's header once every byte has been fed and checked; throws if it ended early. */
  end(): SnapshotHead {
    if (this.phase !== 'done') throw new CorruptDataError(`the snapshot ends early, after ${this.at} bytes (in its ${this.phase === 'head' ? 'header' : this.where()})`);
    return this.head!;
  }

  private stage(bytes: Uint8Array, from: number, n: number): void {
    this.staged.set(bytes.subarray(from, from + n), this.stagedBytes);
    this.stagedBytes += n;
  }

  private where(): string {
    return this.collectionsDone < this.head!.count ? `snapshot collection ${this.collectionsDone + 1}` : 'the snapshot trailer';
  }

  private startBlock(): void {
    const h = new ByteReader(this.staged, 0, BLOCK_HEADER);
    this.type = h.u8();
    this.remaining = h.u32();
    this.expectedCrc = h.u32();
    const inCollections = this.collectionsDone < this.head!.count;
    const types = !inCollections ? [TRAILER_BLOCK] : this.head!.version < SNAPSHOT_FRAMES ? [COLLECTION_BLOCK] : [PART_FRAME, LAST_FRAME];
    if (!types.includes(this.type)) throw new CorruptDataError(`${this.where()} is damaged (a block of type ${this.type} where ${types.join(' or ')} belongs)`);
    if (this.type !== COLLECTION_BLOCK && this.type !== TRAILER_BLOCK && this.remaining > FRAME_BYTES) throw new CorruptDataError(`${this.where()} is damaged (a frame of ${this.remaining} bytes, more than ${FRAME_BYTES})`);
    if (this.type === TRAILER_BLOCK && this.remaining !== TRAILER_BYTES) throw new CorruptDataError(`the snapshot trailer is damaged (${this.remaining} bytes where ${TRAILER_BYTES} belong)`);
    this.crc = this.type === PART_FRAME || this.type === LAST_FRAME ? this.frame : 0;
    this.phase = 'payload';
    if (this.remaining === 0) this.endPayload();
  }

  private endPayload(): void {
    if (this.crc !== this.expectedCrc) throw new CorruptDataError(`${this.where()} is damaged (its checksum does not match)`);
    this.phase = 'block header';
    if (this.type === PART_FRAME) this.frame++;
    else if (this.type === LAST_FRAME || this.type === COLLECTION_BLOCK) {
      this.collectionsDone++;
      this.frame = 0;
    } else {
      const t = new ByteReader(this.staged, 0, TRAILER_BYTES);
      this.stagedBytes = 0;
      if (t.f64() !== this.head!.opId || t.u32() !== this.head!.count) throw new CorruptDataError('snapshot trailer does not match its header');
      this.phase = 'done';
    }
  }
}
