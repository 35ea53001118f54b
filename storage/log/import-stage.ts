import { createHash, type Hash } from 'node:crypto';
import type { Database } from 'lmdb';
import { crc32 } from '../codec/crc32.js';
import { CorruptDataError } from '../errors.js';
import { BLOCK_HEADER } from '../export/format.js';

/** Block bytes handed to LMDB and not yet committed, at most: what a stream holds in memory. */
const IN_FLIGHT_BYTES = 8 * 2 ** 20;

/** A staged block's key: its stage, then its place in the file. */
export type StagedKey = [number, number];

/**
 * A streamed import, staged: the file's POINTS and EDGES blocks, checked, are put into the log's
 * LMDB environment as they arrive (key [stage, n], the block byte for byte), a few MiB in flight
 * at most, so memory stays flat whatever the file's size. They mean nothing until the import's
 * log entry, which names the stage, commits: that entry's transaction also records the stage
 * as belonging to it (LmdbLog.append). A stage whose entry never committed (a failure, or a
 * crash mid-stream) is discarded, at once or at the next open; a committed one goes when its
 * entry is dropped after a snapshot.
 */
export class ImportStage {
  private seq = 0;
  private inFlight = 0;
  private bytes = 0;
  private readonly hash: Hash = createHash('sha256');
  private failure: Error | null = null;
  private readonly writes = new Set<Promise<void>>();
  /** Set once an entry names the stage: from then on its blocks are the entry's. */
  private taken = false;

  constructor(
    readonly id: number,
    private readonly db: Database<Uint8Array, StagedKey>,
    private readonly onDiscard: (id: number) => void,
  ) {}

  /** Bytes staged so far. */
  get size(): number {
    return this.bytes;
  }

  /** Puts one framed block (copied: the caller's bytes may be reused). */
  add(framed: Uint8Array): void {
    if (this.failure) throw this.failure;
    const value = framed.slice();
    this.hash.update(value);
    this.bytes += value.length;
    this.inFlight += value.length;
    const write: Promise<void> = this.db.put([this.id, this.seq++], value).then(
      () => undefined,
      (err: Error) => {
        this.failure ??= err;
      },
    );
    const settled = write.finally(() => {
      this.inFlight -= value.length;
      this.writes.delete(settled);
    });
    this.writes.add(settled);
  }

  /** Resolves once few enough bytes are in flight to take more. */
  async room(): Promise<void> {
    while (this.inFlight > IN_FLIGHT_BYTES && this.writes.size > 0) await Promise.race(this.writes);
    if (this.failure) throw this.failure;
  }

  /** Waits for every block to be committed; answers the count, the bytes and their digest. */
  async finish(): Promise<{ blocks: number; bytes: number; digest: Uint8Array }> {
    await Promise.all(this.writes);
    if (this.failure) throw this.failure;
    return { blocks: this.seq, bytes: this.bytes, digest: new Uint8Array(this.hash.digest()) };
  }

  /** Called by the log as it writes the entry that names the stage. */
  take(): void {
    this.taken = true;
  }

  /** Removes what was staged, unless an entry was written for it (then it goes with that entry). */
  async discard(): Promise<void> {
    if (this.taken) return;
    this.onDiscard(this.id);
    await Promise.all(this.writes);
    await this.db.transaction(() => removeStage(this.db, this.id));
  }
}

/** Removes every block of a stage; called inside a write transaction. */
export function removeStage(db: Database<Uint8Array, StagedKey>, stage: number): void {
  for (const key of [...db.getKeys({ start: [stage, 0], end: [stage + 1, 0] })]) void db.remove(key);
}

/**
 * A stage's blocks in order, each checked against its CRC, and all of them against the digest
 * the entry holds; a damaged or missing block throws CorruptDataError.
 */
export function* stagedBlocks(db: Database<Uint8Array, StagedKey>, stage: number, blocks: number, digest: Uint8Array): Generator<Uint8Array> {
  const hash = createHash('sha256');
  let seen = 0;
  for (const { key, value } of db.getRange({ start: [stage, 0], end: [stage + 1, 0] })) {
    if (key[1] !== seen) throw new CorruptDataError(`staged import ${stage} misses block ${seen + 1}`);
    if (value.length < BLOCK_HEADER) throw new CorruptDataError(`staged import ${stage}: block ${seen + 1} is too short`);
    const view = new DataView(value.buffer, value.byteOffset, value.byteLength);
    if (view.getUint32(1, true) !== value.length - BLOCK_HEADER || crc32(value.subarray(BLOCK_HEADER)) !== view.getUint32(5, true)) {
      throw new CorruptDataError(`staged import ${stage}: block ${seen + 1} fails its checksum`);
    }
    hash.update(value);
    seen++;
    yield value;
  }
  if (seen !== blocks) throw new CorruptDataError(`staged import ${stage} holds ${seen} blocks, its entry names ${blocks}`);
  if (!Buffer.from(hash.digest()).equals(digest)) throw new CorruptDataError(`staged import ${stage}: its blocks do not match the digest in its entry`);
}
