import { ByteReader } from '../codec/byte-reader.js';
import { ByteWriter } from '../codec/byte-writer.js';
import { crc32 } from '../codec/crc32.js';
import { runInSlices, runNow, type Sliced } from '../codec/slices.js';
import { Collection, type CollectionCapture } from '../collection.js';
import { CorruptDataError } from '../errors.js';
import { readConfig, VECTOR_NAMES, writeConfig } from '../events/codec.js';
import { BLOCK_HEADER, block } from '../export/format.js';

/**
 * A snapshot: the whole state as of one operation_id, so start-up loads it and replays only
 * the log after it (the HNSW graph included, so nothing is rebuilt).
 *
 *   file := magic "VGSN" | u16 version | u16 0 | f64 operation_id | u32 collections | block* | trailer block
 *   block (as in the export format: u8 type, u32 length, u32 CRC-32, payload) per collection:
 *     str name | config | f64 creation seed | collection state (store, HNSW, graph, pending slots)
 *   trailer: f64 operation_id | u32 collections
 */
const MAGIC = Uint8Array.of(0x56, 0x47, 0x53, 0x4e);
/**
 * Version 2 added relationship properties, float64 weights and the node-id counter; version 3
 * UUID point ids (in the store and the graph); version 4 the declared payload indexes; version 5
 * named and sparse vectors (in the config, and their stores and indexes after the collection's
 * own state), and the Cypher types of properties after their JSON (codec/payload-text.ts). Every
 * earlier version still loads.
 */
export const SNAPSHOT_FORMAT_VERSION = 5;
/** The first version with named and sparse vectors. */
export const SNAPSHOT_VECTOR_NAMES = 5;
const COLLECTION_BLOCK = 1;
const TRAILER_BLOCK = 2;

export interface Snapshot {
  opId: number;
  collections: Map<string, Collection>;
}

/**
 * Where a snapshot is written as it is encoded: `append` takes bytes in order (and must use them
 * before it returns: the encoder reuses its buffer); `reserve` keeps room for bytes known only
 * later (a block's length and CRC), answering what fills it in.
 */
export interface SnapshotOutput {
  append(bytes: Uint8Array): void;
  reserve(length: number): (bytes: Uint8Array) => void;
}

/**
 * What a collection's block is encoded through on its way to the output, whatever the state's
 * size: each time it fills, the output checksums and writes it, about a millisecond's work.
 */
const ENCODE_BUFFER_BYTES = 256 * 1024;

/** The state at one operation_id, captured at once and written later, a piece at a time (captureSnapshot). */
export interface SnapshotCapture {
  opId: number;
  /** Writes the snapshot to `out`, yielding between pieces; answers the bytes written. */
  write(out: SnapshotOutput): Sliced<number>;
  /** Lets the collections stop keeping vectors for it (idempotent): call it once written, or given up. */
  release(): void;
}

/**
 * Captures the state at operation `opId` (release it once written or given up): what is written
 * later is this state, whatever is applied meanwhile. See sliced-encoding.md.
 */
/**
 * The most bytes a snapshot file may take: block lengths are u32 and a file is read back into one
 * Uint8Array (at most 4 GiB). A state past it (collections of more vectors than one memory held,
 * vector-segments.md) is not snapshotted; the log keeps it.
 */
export const MAX_SNAPSHOT_BYTES = 2 ** 32 - 1;
/** The trailer block: its header, the opId and the collection count. */
const TRAILER_BYTES = BLOCK_HEADER + 12;

const pastLimit = (maxBytes: number, name: string): Error => new Error(`a snapshot holds at most ${maxBytes} bytes, and collection "${name}" takes it past that: none is written, the log is kept and start-up replays it`);

/**
 * Refuses at once a state whose floats alone (written slot for slot) pass the limit, rather
 * than after encoding gigabytes of it; the limit is checked exactly as the bytes are written.
 */
function refusePastLimit(collections: ReadonlyMap<string, Collection>, maxBytes: number): void {
  let floor = 0;
  for (const c of collections.values()) {
    floor += c.store.slotCount * c.store.dim * 4;
    if (floor > maxBytes) throw pastLimit(maxBytes, c.name);
  }
}

/** `maxBytes` (tests): the most bytes the snapshot may take, MAX_SNAPSHOT_BYTES by default. */
export function captureSnapshot(collections: ReadonlyMap<string, Collection>, opId: number, maxBytes = MAX_SNAPSHOT_BYTES): SnapshotCapture {
  refusePastLimit(collections, maxBytes);
  const captured: { name: string; config: Collection['config']; seed: number; state: CollectionCapture }[] = [];
  try {
    for (const c of collections.values()) captured.push({ name: c.name, config: c.config, seed: c.seed, state: c.capture() });
  } catch (err) {
    for (const c of captured) c.state.release();
    throw err;
  }
  let released = false;
  return {
    opId,
    *write(out) {
      const head = new ByteWriter(24).bytes(MAGIC).u16(SNAPSHOT_FORMAT_VERSION).u16(0).f64(opId).u32(captured.length).finish();
      out.append(head);
      let total = head.length;
      for (const c of captured) {
        const header = out.reserve(BLOCK_HEADER);
        let crc = 0;
        let blockBytes = 0;
        const w = new ByteWriter(ENCODE_BUFFER_BYTES, (bytes) => {
          blockBytes += bytes.length;
          if (total + BLOCK_HEADER + blockBytes + TRAILER_BYTES > maxBytes) throw pastLimit(maxBytes, c.name);
          crc = crc32(bytes, 0, bytes.length, crc);
          out.append(bytes);
        }).str(c.name);
        writeConfig(w, c.config);
        w.f64(c.seed);
        yield* c.state.write(w);
        w.flush();
        header(new ByteWriter(BLOCK_HEADER).u8(COLLECTION_BLOCK).u32(w.length).u32(crc).finish());
        total += BLOCK_HEADER + w.length;
        yield;
      }
      const trailer = block(TRAILER_BLOCK, new ByteWriter(12).f64(opId).u32(captured.length).finish());
      out.append(trailer);
      return total + trailer.length;
    },
    release() {
      if (released) return;
      released = true;
      for (const c of captured) c.state.release();
    },
  };
}

/**
 * Writes the state at operation `opId` to `out` now, a collection block at a time and each block
 * a buffer at a time, without holding it encoded in memory. Answers the bytes written.
 */
export function writeSnapshot(collections: ReadonlyMap<string, Collection>, opId: number, out: SnapshotOutput): number {
  const capture = captureSnapshot(collections, opId);
  try {
    return runNow(capture.write(out));
  } finally {
    capture.release();
  }
}

/** An output that keeps the chunks in memory. */
function chunkOutput(chunks: Uint8Array[]): SnapshotOutput {
  return {
    append: (bytes) => void chunks.push(bytes.slice()),
    reserve: (length) => {
      const room = new Uint8Array(length);
      chunks.push(room);
      return (bytes) => room.set(bytes);
    },
  };
}

/** The state as chunks in memory, at the current operation_id (tests; the engine writes snapshots through captureSnapshot). */
export function encodeSnapshot(collections: ReadonlyMap<string, Collection>, opId: number): Uint8Array[] {
  const chunks: Uint8Array[] = [];
  writeSnapshot(collections, opId, chunkOutput(chunks));
  return chunks;
}

/**
 * The state at operation `opId` as chunks in memory, captured now and encoded in slices of
 * `sliceMs`, awaiting `pause` between them, so the thread goes on serving meanwhile.
 */
export async function encodeSnapshotInSlices(collections: ReadonlyMap<string, Collection>, opId: number, sliceMs: number, pause: () => Promise<void>): Promise<Uint8Array[]> {
  const capture = captureSnapshot(collections, opId);
  const chunks: Uint8Array[] = [];
  try {
    await runInSlices(capture.write(chunkOutput(chunks)), sliceMs, pause);
  } finally {
    capture.release();
  }
  return chunks;
}

/** Decodes a whole snapshot file, checking every block; throws CorruptDataError on any damage. */
export function decodeSnapshot(bytes: Uint8Array): Snapshot {
  const r = new ByteReader(bytes);
  if (!MAGIC.every((b) => r.u8() === b)) throw new CorruptDataError('not a snapshot: bad magic');
  const version = r.u16();
  if (version < 1 || version > SNAPSHOT_FORMAT_VERSION) throw new CorruptDataError(`unsupported snapshot version ${version}`);
  r.u16();
  const opId = r.f64();
  const count = r.u32();
  const collections = new Map<string, Collection>();
  const nextBlock = (type: number): ByteReader => {
    const h = new ByteReader(bytes, r.pos, r.pos + BLOCK_HEADER);
    const t = h.u8();
    const length = h.u32();
    const crc = h.u32();
    r.pos += BLOCK_HEADER;
    const payload = r.bytes(length);
    if (t !== type || crc32(payload) !== crc) throw new CorruptDataError(`snapshot block ${collections.size + 1} is damaged`);
    return new ByteReader(payload);
  };
  for (let i = 0; i < count; i++) {
    const b = nextBlock(COLLECTION_BLOCK);
    const name = b.str();
    // Configs before version 5 are laid out as log entries before VECTOR_NAMES.
    const config = readConfig(b, version >= SNAPSHOT_VECTOR_NAMES ? VECTOR_NAMES : VECTOR_NAMES - 1);
    const c = new Collection(name, config, b.f64());
    c.readFrom(b, version);
    b.expectEnd();
    collections.set(name, c);
  }
  const t = nextBlock(TRAILER_BLOCK);
  if (t.f64() !== opId || t.u32() !== count) throw new CorruptDataError('snapshot trailer does not match its header');
  r.expectEnd();
  return { opId, collections };
}
