import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, renameSync, truncateSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { open, type Database, type RootDatabase } from 'lmdb';
import { encodeEvent } from '../events/codec.js';
import type { DbEvent } from '../events/types.js';
import { DbError } from '../errors.js';
import { DataDirLock } from './data-dir-lock.js';
import { DamagedLogFileError, isDamagedFile, lmdbShortfall } from './lmdb-file-check.js';
import type { Appended, EventLog, ImportStaging, LogEntry, RawEntry, SkipNote } from './event-log.js';
import { chainHash, GENESIS, headAfter, hex } from './chain.js';
import { decodeEntry, frameChained } from './record.js';
import { ImportStage } from './import-stage.js';
import { StageFiles } from './stage-files.js';
import type { Sliced } from '../codec/slices.js';

/** The meta key holding the highest dropped operation_id, so the counter survives truncation. */
const FLOOR = 'floor';
/** Keys retentionCut takes from the log at once, between two yields. */
const CUT_KEYS_A_PAGE = 1_024;

export interface LmdbLogOptions {
  /** LMDB map size in bytes: the most the log file may grow to. */
  mapSize?: number;
  /**
   * When the data file is too damaged to open, move it aside and start an empty log (what it held
   * is lost beyond the snapshots); told the reason and where the file went. Without it, open throws.
   */
  onDamagedFile?: (reason: string, movedTo: string) => void;
}

interface OpenedEnvironment {
  env: RootDatabase;
  entries: Database<Uint8Array, number>;
  meta: Database<number, string>;
  /** Which entry each committed stage of a streamed import belongs to (its blocks are a file, stage-files.ts): stage → [opId, bytes]. */
  stages: Database<[number, number], number>;
  /** The highest operation_id ever assigned: the newest key, or the floor when higher. */
  last: number;
}

/**
 * Opens the environment. A data file shorter than its last commit's pages is either cut (a
 * missing page would kill the process with SIGBUS when touched) or ends in pages LMDB allocated
 * and freed in one commit without writing them (seen after commits that drop many entries).
 * The file is then extended with zero pages and a child process reads every page the trees
 * still use: if one of them was in the missing part, LMDB fails there, the file gets its old
 * length back and opening is refused; otherwise the missing pages were free ones.
 */
function openEnvironment(dir: string, mapSize: number): OpenedEnvironment {
  const short = lmdbShortfall(dir);
  if (short) {
    const file = join(dir, 'data.mdb');
    truncateSync(file, short.needed);
    const read = spawnSync(process.execPath, [fileURLToPath(new URL('./read-all-pages.js', import.meta.url)), dir], { stdio: 'ignore' });
    if (read.status !== 0) {
      truncateSync(file, short.size);
      throw new DamagedLogFileError(short.message);
    }
  }
  // The path is a directory whatever its name: lmdb-js would take a name with a dot for a file.
  const env = open({ path: dir, noSubdir: false, overlappingSync: false, mapSize });
  try {
    const entries = env.openDB<Uint8Array, number>({ name: 'log', encoding: 'binary' });
    const meta = env.openDB<number, string>({ name: 'meta', encoding: 'msgpack' });
    const stages = env.openDB<[number, number], number>({ name: 'stages', encoding: 'msgpack' });
    let last = meta.get(FLOOR) ?? 0;
    for (const key of entries.getKeys({ reverse: true, limit: 1 })) last = Math.max(last, key);
    return { env, entries, meta, stages, last };
  } catch (err) {
    env.close().catch(() => undefined);
    throw err;
  }
}

/**
 * The durable log in one LMDB environment. Keys are operation_ids (ordered-binary numbers,
 * so they do not run out like uint32 keys); values are checksummed records.
 * overlappingSync is off, so a put resolves only after its commit has been fsynced:
 * the resolution is the durability acknowledgement. Concurrent appends share commits
 * through lmdb-js's write batching.
 */
export class LmdbLog implements EventLog {
  readonly synchronous = false;
  private readonly env: RootDatabase;
  private readonly entries: Database<Uint8Array, number>;
  private readonly meta: Database<number, string>;
  private last: number;
  /** The chain hash of the newest entry (see chain.ts). */
  private head: Uint8Array;
  private failure: Error | null = null;
  private skipsDb: Database<SkipNote, number> | null = null;
  private passedDb: Database<number, number> | null = null;
  private readonly stageFiles: StageFiles;
  private readonly stages: Database<[number, number], number>;
  private nextStage = 1;
  /** Stages being written, not yet committed by an entry. */
  private readonly openStages = new Map<number, ImportStage>();
  /**
   * Each entry's stored size, from its append or once retentionCut has read it, until the entry
   * is removed: after every snapshot the cut measures the same entries again, and reading each
   * (tens of MB after a bulk load) held the request thread 20-130 ms. Entries appended before the
   * first cut are read by it, once, in slices; later ones are noted as they are appended.
   */
  private readonly sizes = new Map<number, number>();
  /** Set by the first retentionCut: only then do appends note their sizes (a log never cut keeps none). */
  private measuring = false;

  private constructor(opened: OpenedEnvironment, dir: string, private readonly lock: DataDirLock) {
    this.env = opened.env;
    this.entries = opened.entries;
    this.meta = opened.meta;
    this.stageFiles = new StageFiles(join(dir, 'imports'));
    this.stages = opened.stages;
    this.last = opened.last;
    this.head = this.newestHash();
    this.dropOrphanStages();
  }

  /**
   * Stage files no entry committed (a crash mid-import, or after a failure before the file could
   * be deleted), and those of entries dropped in a truncation whose deletes a crash cut short:
   * nothing refers to them. Runs at open, before any import. New stages are numbered above every
   * stage recorded or on disk.
   */
  private dropOrphanStages(): void {
    const owned = new Set<number>();
    for (const id of this.stages.getKeys()) {
      owned.add(id);
      this.nextStage = Math.max(this.nextStage, id + 1);
    }
    for (const id of this.stageFiles.present()) {
      this.nextStage = Math.max(this.nextStage, id + 1);
      if (!owned.has(id)) this.stageFiles.remove(id);
    }
  }

  /**
   * Starts staging a streamed import's blocks (import-stage.ts). The import's entry names the
   * stage (StagedContent.stage), and append() commits the two together.
   */
  stageImport(id?: number): ImportStage {
    if (id !== undefined && (!Number.isSafeInteger(id) || id < 1 || this.openStages.has(id) || this.stages.get(id) !== undefined)) throw new Error(`import stage ${id} is taken in this log`);
    const chosen = id ?? this.nextStage;
    this.nextStage = Math.max(this.nextStage, chosen + 1);
    const stage = new ImportStage(chosen, this.stageFiles, (stageId) => this.openStages.delete(stageId));
    this.openStages.set(stage.id, stage);
    return stage;
  }

  stageFile(stage: number): string {
    return this.stageFiles.fileOf(stage);
  }

  /** Reads a stage's blocks back (before its entry is written, or from its entry after). */
  stagedBlocks(stage: number, blocks: number, digest: Uint8Array): Iterable<Uint8Array> {
    return this.stageFiles.blocks(stage, blocks, digest);
  }

  /**
   * The streamed imports among the entries from..to whose staged file is missing or not the size
   * its entry wrote (a file deleted or cut by hand, a restore that left `imports/` behind): such an
   * entry cannot be applied. The check start-up and `replay verify` make beside the log's own; a
   * damaged byte in a whole file is found when the entry is applied (each block's CRC, the digest).
   */
  stageProblems(from: number, to: number): { opId: number; message: string }[] {
    const out: { opId: number; message: string }[] = [];
    for (const { key: stage, value } of this.stages.getRange()) {
      const [opId, bytes] = value;
      if (opId < from || opId > to) continue;
      const size = this.stageFiles.sizeOf(stage);
      if (size === bytes) continue;
      const what = size === undefined ? 'is missing' : `holds ${size} bytes, not the ${bytes} staged`;
      out.push({ opId, message: `operation ${opId} (${this.describeImport(opId)}) cannot be applied: its staged blocks, ${this.stageFiles.nameOf(stage)} in the data dir, ${what}` });
    }
    return out.sort((a, b) => a.opId - b.opId);
  }

  /** "an import into "c"", or less when the entry itself does not decode. */
  private describeImport(opId: number): string {
    const record = this.entries.get(opId);
    if (!record) return 'a streamed import whose entry is gone';
    try {
      const event = decodeEntry(opId, record);
      return event.type === 'import_collection' ? `an import into "${event.name}"` : event.type;
    } catch {
      return 'a streamed import';
    }
  }

  /** The newest entry's chain hash: where the next append links (GENESIS after an unchained entry, or none). */
  private newestHash(): Uint8Array {
    for (const { value } of this.entries.getRange({ reverse: true, limit: 1 })) return headAfter(value);
    return GENESIS;
  }

  /** The chain hash of the newest entry, in hex: it names the whole history written so far. */
  get headHash(): string {
    return hex(this.head);
  }

  static open(path: string, options: LmdbLogOptions = {}): LmdbLog {
    const dir = resolve(path);
    mkdirSync(dir, { recursive: true });
    const lock = DataDirLock.acquire(dir);
    const mapSize = options.mapSize ?? 64 * 2 ** 30;
    try {
      let opened;
      try {
        opened = openEnvironment(dir, mapSize);
      } catch (err) {
        if (!options.onDamagedFile || !isDamagedFile(err)) throw err;
        const movedTo = setAside(dir);
        options.onDamagedFile((err as Error).message, movedTo);
        opened = openEnvironment(dir, mapSize);
      }
      return new LmdbLog(opened, dir, lock);
    } catch (err) {
      lock.release();
      throw err;
    }
  }

  get lastOperationId(): number {
    return this.last;
  }

  get firstOperationId(): number {
    for (const key of this.entries.getKeys({ limit: 1 })) return key;
    return this.last + 1;
  }

  /**
   * Raises the counter so the next operation_id is above `opId` (ids that a snapshot or the
   * high-water mark has seen are never handed out again), durably.
   */
  reserveThrough(opId: number): void {
    if (opId <= this.last) return;
    this.meta.putSync(FLOOR, Math.max(opId, this.meta.get(FLOOR) ?? 0));
    this.last = opId;
  }

  passedOver(): ReadonlyMap<number, number> {
    const out = new Map<number, number>();
    for (const { key, value } of this.passed().getRange()) out.set(key, value);
    return out;
  }

  /** Opened on first use, as the skip markers are: a log that never passed ids over has none. */
  private passed(): Database<number, number> {
    return (this.passedDb ??= this.env.openDB<number, number>({ name: 'passed', encoding: 'msgpack' }));
  }

  /**
   * Records the new floor and drops the entries at or below it, and the records of the stages of
   * the imports among them, in one transaction; then deletes those stages' files (a crash before
   * that leaves them orphans, deleted at the next open).
   */
  async truncateThrough(opId: number): Promise<void> {
    const dropped: number[] = [];
    await this.env.transaction(() => {
      void this.meta.put(FLOOR, Math.max(opId, this.meta.get(FLOOR) ?? 0));
      for (const key of this.entries.getKeys({ end: opId + 1 })) void this.entries.remove(key);
      dropped.push(...this.removeStages((owner) => owner <= opId));
    });
    for (const key of this.sizes.keys()) if (key <= opId) this.sizes.delete(key);
    dropped.forEach((stage) => this.stageFiles.remove(stage));
  }

  /** Removes the records of the stages whose entry `drops` picks; called inside a write transaction. Answers those stages. */
  private removeStages(drops: (opId: number) => boolean): number[] {
    const out: number[] = [];
    for (const { key, value } of [...this.stages.getRange()]) {
      if (!drops(value[0])) continue;
      void this.stages.remove(key);
      out.push(key);
    }
    return out;
  }

  /**
   * Where to truncate so that, of the entries at or below `through`, at most `entries` entries
   * and `bytes` bytes (records and staged blocks) stay: the highest operation_id to drop (0: none).
   */
  *retentionCut(through: number, entries: number, bytes: number): Sliced<number> {
    this.measuring = true;
    const stagedBytes = new Map<number, number>();
    for (const { value } of this.stages.getRange()) stagedBytes.set(value[0], value[1]);
    let kept = 0;
    let size = 0;
    // Keys a page at a time, no cursor held across a yield; a yield after each entry read whole.
    for (let from = through; from > 0; ) {
      const page = [...this.entries.getKeys({ start: from, end: 0, reverse: true, limit: CUT_KEYS_A_PAGE })];
      if (page.length === 0) break;
      for (const key of page) {
        if (key > through) continue;
        let stored = this.sizes.get(key);
        if (stored === undefined) {
          // Read through lmdb's one reused buffer: a copy of each brought a full GC after every snapshot.
          stored = this.entries.getBinaryFast(key)?.length ?? 0;
          this.sizes.set(key, stored);
          yield;
        }
        size += stored + (stagedBytes.get(key) ?? 0);
        if (kept >= entries || size > bytes) return key;
        kept++;
      }
      from = page[page.length - 1]! - 1;
      yield;
    }
    return 0;
  }

  /** The first commit error, after which no write is taken (the disk can no longer be trusted). */
  get failed(): Error | null {
    return this.failure;
  }

  append(event: DbEvent, passOverThrough = 0, encoded?: Uint8Array): Appended {
    if (this.failure) throw new DbError(503, `the log stopped taking writes after a commit error: ${this.failure.message}`);
    const stage = event.type === 'import_collection' && event.staged ? this.openStages.get(event.staged.stage) : undefined;
    if (event.type === 'import_collection' && event.staged && !stage) throw new DbError(500, `import stage ${event.staged.stage} is not open in this log`);
    const body = encoded ?? encodeEvent(event);
    const from = this.last + 1;
    if (passOverThrough >= from) this.last = passOverThrough;
    const opId = ++this.last;
    // Ids passed over hold no entry: the chain links this entry to the one written before it.
    this.head = chainHash(this.head, opId, body);
    const record = frameChained(body, this.head);
    if (stage) {
      stage.take();
      this.openStages.delete(stage.id);
    }
    const written = opId > from || stage ? this.putTogether(from, opId, record, stage) : this.entries.put(opId, record);
    if (this.measuring) this.sizes.set(opId, record.length);
    return { opId, durable: this.durably(opId, written), record, bytes: record.length + (stage?.size ?? 0) };
  }

  appendRecord(opId: number, record: Uint8Array, staging?: ImportStaging): Appended {
    if (this.failure) throw new DbError(503, `the log stopped taking writes after a commit error: ${this.failure.message}`);
    if (opId <= this.last) throw new Error(`log entry ${opId} is not above the newest held (${this.last})`);
    const stage = staging && this.openStages.get(staging.id);
    if (staging && stage !== staging) throw new Error(`import stage ${staging.id} is not open in this log`);
    const from = this.last + 1;
    this.last = opId;
    this.head = headAfter(record);
    if (stage) {
      stage.take();
      this.openStages.delete(stage.id);
    }
    const written = opId > from || stage ? this.putTogether(from, opId, record, stage) : this.entries.put(opId, record);
    if (this.measuring) this.sizes.set(opId, record.length);
    return { opId, durable: this.durably(opId, written), record, bytes: record.length + (stage?.size ?? 0) };
  }

  private durably(opId: number, written: Promise<boolean>): Promise<void> {
    return written.then(
      (ok) => {
        if (!ok) throw new Error(`log entry ${opId} was not written`);
      },
      (err: Error) => {
        this.failure ??= err;
        throw new DbError(503, `log entry ${opId} could not be made durable: ${err.message}`);
      },
    );
  }

  /**
   * The entry with what belongs to it, in one transaction ordered after every earlier append: a
   * passed-over run before it (never durable without its entry, or beside an earlier entry that
   * is not), and a streamed import's stage (whose blocks are committed already: from here on
   * they are the entry's, see import-stage.ts).
   */
  private putTogether(from: number, opId: number, record: Uint8Array, stage: ImportStage | undefined): Promise<boolean> {
    const passed = opId > from ? this.passed() : null;
    return this.env.transaction(() => {
      if (passed) void passed.put(from, opId - 1);
      if (stage) void this.stages.put(stage.id, [opId, stage.size]);
      void this.entries.put(opId, record);
      return true;
    });
  }

  *readRaw(from = 1, to = Number.MAX_SAFE_INTEGER): Iterable<RawEntry> {
    for (const { key, value } of this.entries.getRange({ start: from, end: to + 1 })) yield { opId: key, record: value };
  }

  *keys(from = 1, to = Number.MAX_SAFE_INTEGER): Iterable<number> {
    yield* this.entries.getKeys({ start: from, end: to + 1 });
  }

  *read(from = 1, to = Number.MAX_SAFE_INTEGER): Iterable<LogEntry> {
    for (const { opId, record } of this.readRaw(from, to)) {
      const event = decodeEntry(opId, record);
      if (event.type === 'import_collection' && event.staged) {
        const { stage, blocks, digest } = event.staged;
        event.staged.read = () => this.stagedBlocks(stage, blocks, digest);
        event.staged.open = () => this.stageFiles.open(stage, blocks, digest);
      }
      yield { opId, event };
    }
  }

  /** Drops the entries from opId on (repair of a damaged tail); the counter stays where it was. */
  async truncateFrom(opId: number): Promise<number> {
    let dropped = 0;
    const stages: number[] = [];
    await this.env.transaction(() => {
      void this.meta.put(FLOOR, Math.max(this.last, this.meta.get(FLOOR) ?? 0));
      for (const key of this.entries.getKeys({ start: opId })) {
        void this.entries.remove(key);
        this.sizes.delete(key);
        dropped++;
      }
      stages.push(...this.removeStages((owner) => owner >= opId));
    });
    stages.forEach((stage) => this.stageFiles.remove(stage));
    this.head = this.newestHash();
    return dropped;
  }

  /**
   * Skip markers live in their own named database beside the log, keyed by operation_id: the
   * entry itself stays as it was written (its checksum, and the record of what was asked), and
   * replay, verify and inspect read the markers. Opened on first use.
   */
  private skips(): Database<SkipNote, number> {
    return (this.skipsDb ??= this.env.openDB<SkipNote, number>({ name: 'skips', encoding: 'msgpack' }));
  }

  skippedOperations(): ReadonlyMap<number, SkipNote> {
    const out = new Map<number, SkipNote>();
    for (const { key, value } of this.skips().getRange()) out.set(key, value);
    return out;
  }

  /** Durably marks entry opId as skipped at replay. */
  async markSkipped(opId: number, note: SkipNote): Promise<void> {
    await this.skips().put(opId, note);
  }

  async close(): Promise<void> {
    await this.env.close();
    this.lock.release();
  }
}

/** Moves a data file that cannot be opened (and LMDB's lock file beside it) out of the way, keeping it for inspection. */
function setAside(dir: string): string {
  const movedTo = join(dir, `data.mdb.damaged-${new Date().toISOString().replace(/[:.]/g, '-')}`);
  renameSync(join(dir, 'data.mdb'), movedTo);
  if (existsSync(join(dir, 'lock.mdb'))) renameSync(join(dir, 'lock.mdb'), `${movedTo}.lock`);
  return movedTo;
}
