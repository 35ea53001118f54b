import { ByteReader } from '../codec/byte-reader.js';
import { ByteWriter } from '../codec/byte-writer.js';
import { chunkSource, type ByteSource } from '../codec/byte-source.js';
import { crc32 } from '../codec/crc32.js';
import { runInSlices, runNow, type Sliced } from '../codec/slices.js';
import { Collection, type CollectionCapture } from '../collection.js';
import type { FloatFiles } from '../views/float-file.js';
import { CorruptDataError } from '../errors.js';
import { MULTIVECTORS, readConfig, VECTOR_NAMES, writeConfig } from '../events/codec.js';
import { BLOCK_HEADER, block } from '../export/format.js';

/**
 * A snapshot: the whole state as of one operation_id, so start-up loads it and replays only
 * the log after it (the HNSW graph included, so nothing is rebuilt).
 *
 *   file := magic "VGSN" | u16 version | u16 0 | f64 operation_id | u32 collections | collection* | trailer block
 *   collection := frame* (type PART) then one frame (type LAST), whose payloads joined are:
 *     str name | config | f64 creation seed | collection state (store, HNSW, graph, pending slots)
 *   frame, trailer block (as the export format's blocks: u8 type, u32 length, u32 CRC-32, payload)
 *   trailer: f64 operation_id | u32 collections
 *
 * A collection is cut into frames of FRAME_BYTES, each checked by its own CRC before any of its
 * bytes is decoded, so a state of any size is written and read back a frame at a time: no
 * length passes a u32, and start-up holds one frame of the file, not the file (version 6; before
 * it a collection was one block, of at most 4 GiB, and a file was read back whole).
 */
const MAGIC = Uint8Array.of(0x56, 0x47, 0x53, 0x4e);
/** The header's bytes: magic, version, 0, operation_id, collections. */
export const HEAD_BYTES = 20;
/**
 * Version 2 added relationship properties, float64 weights and the node-id counter; version 3
 * UUID point ids (in the store and the graph); version 4 the declared payload indexes; version 5
 * named and sparse vectors (in the config, and their stores and indexes after the collection's
 * own state), and the Cypher types of properties after their JSON (codec/payload-text.ts);
 * version 6 cut each collection into frames; version 7 put each collection's settings ahead of
 * its state (Collection.readFrom), so that floats on disk go straight to their file; version 8
 * multivectors (in the config, and their matrices after the sparse vectors). Every earlier
 * version still loads.
 */
export const SNAPSHOT_FORMAT_VERSION = 8;
/** The first version with named and sparse vectors. */
export const SNAPSHOT_VECTOR_NAMES = 5;
/** The first version with multivectors. */
export const SNAPSHOT_MULTIVECTORS = 8;
/** The first version whose collections are cut into frames. */
export const SNAPSHOT_FRAMES = 6;
/** Before version 6: a collection's one block. */
export const COLLECTION_BLOCK = 1;
export const TRAILER_BLOCK = 2;
/** A frame of a collection that more frames follow, and its last. */
export const PART_FRAME = 3;
export const LAST_FRAME = 4;
/** The trailer's payload: f64 operation_id, u32 collections. */
export const TRAILER_BYTES = 12;
/** The most payload bytes a frame holds: what start-up reads, checks and decodes at a time. */
export const FRAME_BYTES = 16 * 2 ** 20;

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
  /**
   * Resolves once `write` has taken the copies the capture leaves to be taken a piece at a time
   * (the HNSW links, first of all), or the capture is released: the collections link again from then on.
   */
  copied: Promise<void>;
}

/** Cuts what a collection's encoder hands on into frames on `out`, each with its length and CRC. */
class FrameWriter {
  /** Bytes written so far, frame headers included. */
  written = 0;
  private header: ((bytes: Uint8Array) => void) | null = null;
  private length = 0;
  /** Frames closed so far: each frame's CRC starts from its index, so a frame missing or moved fails its check. */
  private index = 0;
  private crc = 0;

  constructor(
    private readonly out: SnapshotOutput,
    private readonly frameBytes: number,
  ) {}

  append(bytes: Uint8Array): void {
    for (let at = 0; at < bytes.length; ) {
      // A full frame waits to be closed until more bytes come: the collection's last may be full.
      if (this.header && this.length === this.frameBytes) this.close(PART_FRAME);
      if (!this.header) {
        this.header = this.out.reserve(BLOCK_HEADER);
        this.written += BLOCK_HEADER;
      }
      const piece = bytes.subarray(at, Math.min(bytes.length, at + this.frameBytes - this.length));
      this.crc = crc32(piece, 0, piece.length, this.crc);
      this.out.append(piece);
      this.length += piece.length;
      this.written += piece.length;
      at += piece.length;
    }
  }

  private close(type: number): void {
    this.header!(new ByteWriter(BLOCK_HEADER).u8(type).u32(this.length).u32(this.crc).finish());
    this.header = null;
    this.length = 0;
    this.crc = ++this.index;
  }

  /** Closes the collection's last frame (an empty one if none is open). */
  finish(): void {
    if (!this.header) {
      this.header = this.out.reserve(BLOCK_HEADER);
      this.written += BLOCK_HEADER;
    }
    this.close(LAST_FRAME);
  }
}

/**
 * Captures the state at operation `opId` (release it once written or given up): what is written
 * later is this state, whatever is applied meanwhile. See sliced-encoding.md. `frameBytes`
 * (tests): the most payload a frame takes.
 */
export function captureSnapshot(collections: ReadonlyMap<string, Collection>, opId: number, frameBytes = FRAME_BYTES, links = true): SnapshotCapture {
  const captured: { name: string; config: Collection['config']; seed: number; state: CollectionCapture }[] = [];
  try {
    for (const c of collections.values()) captured.push({ name: c.name, config: c.config, seed: c.seed, state: c.capture(links) });
  } catch (err) {
    for (const c of captured) c.state.release();
    throw err;
  }
  let released = false;
  let copiedAll = (): void => undefined;
  const copied = new Promise<void>((resolve) => (copiedAll = resolve));
  return {
    opId,
    copied,
    *write(out) {
      // The links first, a piece at a time: no collection links anything until they are taken.
      for (const c of captured) yield* c.state.copy;
      copiedAll();
      const head = new ByteWriter(HEAD_BYTES).bytes(MAGIC).u16(SNAPSHOT_FORMAT_VERSION).u16(0).f64(opId).u32(captured.length).finish();
      out.append(head);
      let total = head.length;
      for (const c of captured) {
        const frames = new FrameWriter(out, frameBytes);
        const w = new ByteWriter(ENCODE_BUFFER_BYTES, (bytes) => frames.append(bytes)).str(c.name);
        writeConfig(w, c.config);
        w.f64(c.seed);
        yield* c.state.write(w);
        w.flush();
        frames.finish();
        total += frames.written;
        yield;
      }
      const trailer = block(TRAILER_BLOCK, new ByteWriter(TRAILER_BYTES).f64(opId).u32(captured.length).finish());
      out.append(trailer);
      return total + trailer.length;
    },
    release() {
      if (released) return;
      released = true;
      for (const c of captured) c.state.release();
      copiedAll();
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
 * Writes the state at operation `opId` to `out`, captured now and encoded in slices of `sliceMs`,
 * awaiting `pause` between them (a rejection stops it), so the thread goes on serving meanwhile.
 * `links` false: without the HNSW graphs' links (captureEmpty), for a copy no search walks.
 */
export async function writeSnapshotInSlices(collections: ReadonlyMap<string, Collection>, opId: number, out: SnapshotOutput, sliceMs: number, pause: () => Promise<void>, links = true): Promise<void> {
  const capture = captureSnapshot(collections, opId, FRAME_BYTES, links);
  try {
    await runInSlices(capture.write(out), sliceMs, pause);
  } finally {
    capture.release();
  }
}

export interface SnapshotHead {
  version: number;
  opId: number;
  /** Collections the snapshot holds. */
  count: number;
}

/** The header's HEAD_BYTES, checked: a snapshot's magic and a version this build reads. */
export function readSnapshotHead(bytes: Uint8Array): SnapshotHead {
  const r = new ByteReader(bytes);
  if (!MAGIC.every((b) => r.u8() === b)) throw new CorruptDataError('not a snapshot: bad magic');
  const version = r.u16();
  if (version < 1 || version > SNAPSHOT_FORMAT_VERSION) throw new CorruptDataError(`unsupported snapshot version ${version}`);
  r.u16();
  return { version, opId: r.f64(), count: r.u32() };
}

/** A block's or frame's header and payload, its CRC (begun from `seed`) checked; `types` the types it may have. */
function readBlock(source: ByteSource, types: readonly number[], what: () => string, seed = 0): { type: number; payload: Uint8Array } {
  const h = new ByteReader(source.read(BLOCK_HEADER));
  const type = h.u8();
  const length = h.u32();
  const crc = h.u32();
  if (!types.includes(type)) throw new CorruptDataError(`${what()} is damaged (a block of type ${type} where ${types.join(' or ')} belongs)`);
  // Checked before anything is read for it: a damaged length must not allocate gigabytes.
  if ((type === PART_FRAME || type === LAST_FRAME) && length > FRAME_BYTES) throw new CorruptDataError(`${what()} is damaged (a frame of ${length} bytes, more than ${FRAME_BYTES})`);
  const payload = source.read(length);
  if (crc32(payload, 0, payload.length, seed) !== crc) throw new CorruptDataError(`${what()} is damaged (its checksum does not match)`);
  return { type, payload };
}

/**
 * Decodes a snapshot, checking every block and frame; throws CorruptDataError on any damage.
 * From a source (a file read as it goes), a frame at a time; or from bytes in memory. With
 * `floatFiles`, the floats of vectors on disk go to their files as they are read (format 7 on).
 */
export function decodeSnapshot(input: Uint8Array | readonly Uint8Array[] | ByteSource, floatFiles: FloatFiles | null = null): Snapshot {
  const source = input instanceof Uint8Array || Array.isArray(input) ? chunkSource(input as Uint8Array | readonly Uint8Array[]) : (input as ByteSource);
  const { version, opId, count } = readSnapshotHead(source.read(HEAD_BYTES));
  const collections = new Map<string, Collection>();
  const where = (): string => `snapshot collection ${collections.size + 1}`;
  for (let i = 0; i < count; i++) {
    let b: ByteReader;
    if (version < SNAPSHOT_FRAMES) b = new ByteReader(readBlock(source, [COLLECTION_BLOCK], where).payload);
    else {
      const first = readBlock(source, [PART_FRAME, LAST_FRAME], where);
      let last = first.type === LAST_FRAME;
      let index = 0;
      b = new ByteReader(first.payload, 0, first.payload.length, () => {
        if (last) return null;
        const frame = readBlock(source, [PART_FRAME, LAST_FRAME], where, ++index);
        last = frame.type === LAST_FRAME;
        return frame.payload;
      });
    }
    const name = b.str();
    // Configs are laid out as log entries: before version 5 as before VECTOR_NAMES, before version 8 as before MULTIVECTORS.
    const config = readConfig(b, version >= SNAPSHOT_MULTIVECTORS ? MULTIVECTORS : version >= SNAPSHOT_VECTOR_NAMES ? VECTOR_NAMES : VECTOR_NAMES - 1);
    const c = new Collection(name, config, b.f64());
    c.readFrom(b, version, floatFiles);
    b.expectEnd();
    collections.set(name, c);
  }
  const t = new ByteReader(readBlock(source, [TRAILER_BLOCK], () => 'the snapshot trailer').payload);
  if (t.f64() !== opId || t.u32() !== count) throw new CorruptDataError('snapshot trailer does not match its header');
  t.expectEnd();
  if (!source.done) throw new CorruptDataError('unexpected bytes after the snapshot trailer');
  return { opId, collections };
}
