import { existsSync, mkdirSync, renameSync, truncateSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { open, type Database, type RootDatabase } from 'lmdb';
import { encodeEvent } from '../events/codec.js';
import type { DbEvent } from '../events/types.js';
import { DbError } from '../errors.js';
import { DataDirLock } from './data-dir-lock.js';
import { DamagedLogFileError, isDamagedFile, lmdbShortfall } from './lmdb-file-check.js';
import type { Appended, EventLog, LogEntry, RawEntry, SkipNote } from './event-log.js';
import { chainHash, GENESIS, hex } from './chain.js';
import { chainHashOf, decodeEntry, frameChained } from './record.js';

/** The meta key holding the highest dropped operation_id, so the counter survives truncation. */
const FLOOR = 'floor';

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
  /** The highest operation_id ever assigned: the newest key, or the floor when higher. */
  last: number;
}

/**
 * Opens the environment. A data file shorter than its last commit's pages is either cut (a
 * missing page would kill the process with SIGBUS when touched) or ends in pages LMDB allocated
 * and freed in one commit without writing them (seen after commits that drop many entries).
 * The file is then extended with zero pages and every page the trees still use is read: if
 * one of them was in the missing part, LMDB finds it damaged, the file gets its old length
 * back and opening is refused; otherwise the missing pages were free ones and the log opens.
 */
function openEnvironment(dir: string, mapSize: number): OpenedEnvironment {
  const short = lmdbShortfall(dir);
  if (short) truncateSync(join(dir, 'data.mdb'), short.needed);
  // The path is a directory whatever its name: lmdb-js would take a name with a dot for a file.
  const env = open({ path: dir, noSubdir: false, overlappingSync: false, mapSize });
  try {
    const entries = env.openDB<Uint8Array, number>({ name: 'log', encoding: 'binary' });
    const meta = env.openDB<number, string>({ name: 'meta', encoding: 'msgpack' });
    if (short) readEveryUsedPage(env);
    let last = meta.get(FLOOR) ?? 0;
    for (const key of entries.getKeys({ reverse: true, limit: 1 })) last = Math.max(last, key);
    return { env, entries, meta, last };
  } catch (err) {
    env.close().catch(() => undefined);
    if (!short) throw err;
    truncateSync(join(dir, 'data.mdb'), short.size);
    throw isDamagedFile(err) ? new DamagedLogFileError(short.message) : err;
  }
}

/** Reads every key and value of every database in the environment, so LMDB visits each page its trees use. */
function readEveryUsedPage(env: RootDatabase): void {
  for (const name of env.getKeys()) {
    if (typeof name !== 'string') continue;
    // Fetching each entry copies its value, which reads its pages (overflow pages included).
    env.openDB<Uint8Array, Uint8Array>({ name, encoding: 'binary', keyEncoding: 'binary' }).getRange().forEach(() => undefined);
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

  private constructor(opened: OpenedEnvironment, private readonly lock: DataDirLock) {
    this.env = opened.env;
    this.entries = opened.entries;
    this.meta = opened.meta;
    this.last = opened.last;
    this.head = this.newestHash();
  }

  /** The newest entry's chain hash: where the next append links (GENESIS after an unchained entry, or none). */
  private newestHash(): Uint8Array {
    for (const { value } of this.entries.getRange({ reverse: true, limit: 1 })) return chainHashOf(value) ?? GENESIS;
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
      return new LmdbLog(opened, lock);
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

  /** Records the new floor and drops the entries at or below it, in one transaction. */
  async truncateThrough(opId: number): Promise<void> {
    await this.env.transaction(() => {
      void this.meta.put(FLOOR, Math.max(opId, this.meta.get(FLOOR) ?? 0));
      for (const key of this.entries.getKeys({ end: opId + 1 })) void this.entries.remove(key);
    });
  }

  /** The first commit error, after which no write is taken (the disk can no longer be trusted). */
  get failed(): Error | null {
    return this.failure;
  }

  append(event: DbEvent, passOverThrough = 0): Appended {
    if (this.failure) throw new DbError(503, `the log stopped taking writes after a commit error: ${this.failure.message}`);
    const body = encodeEvent(event);
    const from = this.last + 1;
    if (passOverThrough >= from) this.last = passOverThrough;
    const opId = ++this.last;
    // Ids passed over hold no entry: the chain links this entry to the one written before it.
    this.head = chainHash(this.head, opId, body);
    const record = frameChained(body, this.head);
    const written = opId > from ? this.putPassingOver(from, opId, record) : this.entries.put(opId, record);
    return { opId, durable: this.durably(opId, written), record };
  }

  appendRecord(opId: number, record: Uint8Array): Appended {
    if (this.failure) throw new DbError(503, `the log stopped taking writes after a commit error: ${this.failure.message}`);
    if (opId <= this.last) throw new Error(`log entry ${opId} is not above the newest held (${this.last})`);
    const from = this.last + 1;
    this.last = opId;
    this.head = chainHashOf(record) ?? GENESIS;
    const written = opId > from ? this.putPassingOver(from, opId, record) : this.entries.put(opId, record);
    return { opId, durable: this.durably(opId, written), record };
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
   * The passed-over run and the entry after it in one transaction, ordered after every earlier
   * append: the run is never durable without its entry, or beside an earlier entry that is not.
   */
  private putPassingOver(from: number, opId: number, record: Uint8Array): Promise<boolean> {
    const passed = this.passed();
    return this.env.transaction(() => {
      void passed.put(from, opId - 1);
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
    for (const { opId, record } of this.readRaw(from, to)) yield { opId, event: decodeEntry(opId, record) };
  }

  /** Drops the entries from opId on (repair of a damaged tail); the counter stays where it was. */
  async truncateFrom(opId: number): Promise<number> {
    let dropped = 0;
    await this.env.transaction(() => {
      void this.meta.put(FLOOR, Math.max(this.last, this.meta.get(FLOOR) ?? 0));
      for (const key of this.entries.getKeys({ start: opId })) {
        void this.entries.remove(key);
        dropped++;
      }
    });
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
