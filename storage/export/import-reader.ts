import { ByteReader } from '../codec/byte-reader.js';
import { joinChunks } from '../codec/join-chunks.js';
import { crc32 } from '../codec/crc32.js';
import { checkPayload } from '../engine/validate-event.js';
import { LIMIT_VARIABLES, type WriteLimits } from '../engine/write-limits.js';
import { badRequest, CorruptDataError } from '../errors.js';
import { readConfig, readEdge, readFieldIndexes, readPoint, readSettings } from '../events/codec.js';
import type { CollectionConfig, CollectionSettings, EdgeRecord, FieldIndex, PointRecord } from '../events/types.js';
import { BLOCK, BLOCK_HEADER, entryVersionOf, FILE_PREAMBLE, FORMAT_VERSION, HEADER_OPERATION_AND_SETTINGS, MAGIC } from './format.js';

/** The file's header block, as read. */
export interface ExportHeader {
  name: string;
  config: CollectionConfig;
  points: number;
  edges: number;
  exportedAt: number;
  settings: CollectionSettings;
  logHead: string;
}

/**
 * Where a reader hands each block once it is checked. `framed` is the block as it stands in the
 * file (type, length, CRC, payload), valid only during the call. The default keeps the records.
 */
export interface ImportSink {
  header?(header: ExportHeader, version: number): void;
  points(points: PointRecord[], framed: Uint8Array): void;
  edges(edges: EdgeRecord[], framed: Uint8Array): void;
}

export interface ParsedExport {
  name: string;
  config: CollectionConfig;
  points: PointRecord[];
  edges: EdgeRecord[];
  indexes: Record<string, FieldIndex>;
  settings: CollectionSettings;
  /** The operation_id the file was exported at (0: files before version 5 do not say). */
  exportedAt: number;
  /** The exporting log's head hash (hex; '' when it gave none, and in files before version 5). */
  logHead: string;
}

/**
 * Reads an export file as it arrives, a chunk at a time: checks the magic, the version, every
 * block's CRC and the trailer's counts, and throws CorruptDataError naming the first problem.
 * With `limits`, a file that breaks one (too many points, a payload too deep or too large) is
 * refused with a 400 at the block that shows it, before the rest is read; the engine checks the
 * whole operation against the same limits again before logging it.
 * Nothing is applied here. By default the records are kept and finish() answers them all; with a
 * sink each checked block goes there instead (a streamed import stages it), and finish() answers
 * the header and the indexes with empty point and edge lists.
 */
export class ImportReader {
  /** Bytes received but not yet parsed, kept as the chunks they came in. */
  private pending: Uint8Array[] = [];
  private pendingBytes = 0;
  /** How many pending bytes the next step needs (the preamble, a block header, or a whole block). */
  private needed = FILE_PREAMBLE;
  private started = false;
  private version = FORMAT_VERSION;
  private header: ExportHeader | null = null;
  private readonly points: PointRecord[] = [];
  private readonly edges: EdgeRecord[] = [];
  private pointCount = 0;
  private edgeCount = 0;
  private readonly indexes: Record<string, FieldIndex> = {};
  private blocks = 0;
  private done = false;
  private readonly sink: ImportSink;

  constructor(private readonly limits: WriteLimits | null = null, sink?: ImportSink) {
    this.sink = sink ?? { points: (points) => this.points.push(...points), edges: (edges) => this.edges.push(...edges) };
  }

  /** The file's format version (known once its first bytes are in). */
  get formatVersion(): number {
    return this.version;
  }

  /**
   * Takes the next chunk. Chunks are joined only once the next step has all its bytes, so a
   * block arriving in many small chunks (or a damaged length that never completes) is not
   * copied again with every chunk.
   */
  feed(chunk: Uint8Array): void {
    this.pending.push(chunk);
    this.pendingBytes += chunk.length;
    if (this.pendingBytes < this.needed) return;
    const buffer = this.pending.length === 1 ? this.pending[0]! : joinChunks(this.pending, this.pendingBytes);
    let at = 0;
    if (!this.started) {
      if (!MAGIC.every((b, i) => buffer[i] === b)) throw new CorruptDataError('not an export file: the magic bytes are wrong');
      const r = new ByteReader(buffer, 4, FILE_PREAMBLE);
      const version = r.u16();
      if (version < 1 || version > FORMAT_VERSION) throw new CorruptDataError(`unsupported export format version ${version} (this server reads versions 1 to ${FORMAT_VERSION})`);
      this.version = version;
      this.started = true;
      at = FILE_PREAMBLE;
    }
    this.needed = BLOCK_HEADER;
    while (buffer.length - at >= BLOCK_HEADER) {
      const r = new ByteReader(buffer, at, at + BLOCK_HEADER);
      const type = r.u8();
      const length = r.u32();
      const crc = r.u32();
      if (buffer.length - at - BLOCK_HEADER < length) {
        this.needed = BLOCK_HEADER + length;
        break;
      }
      const payload = buffer.subarray(at + BLOCK_HEADER, at + BLOCK_HEADER + length);
      if (crc32(payload) !== crc) throw new CorruptDataError(`block ${this.blocks + 1} fails its checksum`);
      this.block(type, payload, buffer.subarray(at, at + BLOCK_HEADER + length));
      at += BLOCK_HEADER + length;
    }
    const rest = buffer.subarray(at);
    this.pending = rest.length > 0 ? [rest] : [];
    this.pendingBytes = rest.length;
  }

  private block(type: number, payload: Uint8Array, framed: Uint8Array): void {
    if (this.done) throw new CorruptDataError('data after the trailer');
    const r = new ByteReader(payload);
    if (!this.header && type !== BLOCK.header) throw new CorruptDataError('the file does not start with a header block');
    switch (type) {
      case BLOCK.header:
        if (this.header) throw new CorruptDataError('a second header block');
        this.header = { name: r.str(), config: readConfig(r, entryVersionOf(this.version)), points: r.f64(), edges: r.f64(), exportedAt: 0, settings: {}, logHead: '' };
        if (this.version >= HEADER_OPERATION_AND_SETTINGS) {
          this.header.exportedAt = r.f64();
          if (!Number.isSafeInteger(this.header.exportedAt) || this.header.exportedAt < 0) throw new CorruptDataError(`the header holds an impossible operation_id ${this.header.exportedAt}`);
          this.header.settings = readSettings(r);
          this.header.logHead = r.str();
          if (!/^([0-9a-f]{64})?$/.test(this.header.logHead)) throw new CorruptDataError('the header holds a log head hash that is not 64 hex digits');
        }
        if (this.limits && this.header.points > this.limits.maxPointsPerCollection) {
          throw badRequest(`the file holds ${this.header.points} points, more than the limit of ${this.limits.maxPointsPerCollection} per collection (${LIMIT_VARIABLES.maxPointsPerCollection})`);
        }
        this.sink.header?.(this.header, this.version);
        break;
      case BLOCK.points: {
        const points: PointRecord[] = [];
        for (let n = r.u32(), i = 0; i < n; i++) {
          const point = readPoint(r, entryVersionOf(this.version));
          if (this.limits) checkPayload(point.payload, `point ${point.id}: payload`, this.limits);
          points.push(point);
        }
        r.expectEnd();
        this.pointCount += points.length;
        this.sink.points(points, framed);
        break;
      }
      case BLOCK.edges: {
        const edges: EdgeRecord[] = [];
        for (let n = r.u32(), i = 0; i < n; i++) edges.push(readEdge(r, entryVersionOf(this.version)));
        r.expectEnd();
        this.edgeCount += edges.length;
        this.sink.edges(edges, framed);
        break;
      }
      case BLOCK.indexes:
        Object.assign(this.indexes, readFieldIndexes(r));
        break;
      case BLOCK.trailer: {
        const points = r.f64();
        const edges = r.f64();
        const blocks = r.u32();
        if (points !== this.pointCount || edges !== this.edgeCount || blocks !== this.blocks) {
          throw new CorruptDataError(`the trailer counts ${points} points, ${edges} edges and ${blocks} blocks, the file holds ${this.pointCount}, ${this.edgeCount} and ${this.blocks}`);
        }
        this.done = true;
        break;
      }
      default:
        throw new CorruptDataError(`unknown block type ${type}`);
    }
    r.expectEnd();
    this.blocks++;
  }

  finish(): ParsedExport {
    if (!this.started || !this.header || !this.done || this.pendingBytes > 0) {
      throw new CorruptDataError(this.pendingBytes > 0 && this.done ? 'data after the trailer' : 'the file ends early (truncated)');
    }
    if (this.header.points !== this.pointCount || this.header.edges !== this.edgeCount) {
      throw new CorruptDataError('the header counts do not match the file');
    }
    const { name, config, settings, exportedAt, logHead } = this.header;
    return { name, config, points: this.points, edges: this.edges, indexes: this.indexes, settings, exportedAt, logHead };
  }
}

