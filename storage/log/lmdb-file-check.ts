import { closeSync, existsSync, fstatSync, openSync, readSync } from 'node:fs';
import { join } from 'node:path';

/** The data file cannot be opened safely: cut short, or pages LMDB finds damaged. */
export class DamagedLogFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DamagedLogFileError';
  }
}

/** LMDB's own words for a file whose pages are not what a commit left there. */
const LMDB_DAMAGE = /MDB_CORRUPTED|MDB_PAGE_NOTFOUND|MDB_INVALID|MDB_BAD_TXN/;

/** True for an error that says the data file is damaged (rather than, say, a permission problem). */
export function isDamagedFile(err: unknown): boolean {
  return err instanceof DamagedLogFileError || (err instanceof Error && LMDB_DAMAGE.test(err.message));
}

const MAGIC = 0xbeefc0de;
/** Where lmdb-js 3.x's meta page keeps its fields (checked by the magic before they are trusted). */
const AT = { magic: 24, pageSize: 48, lastPage: 144, txnId: 152 } as const;

/**
 * LMDB keeps no checksums, and a data file cut short kills the process with SIGBUS when a
 * missing page is touched. Before opening, this reads both meta pages, takes the newer one and
 * refuses a file shorter than the pages it claims. A layout it does not recognise is let through.
 * It cannot see a cut that the file grew back over: a commit after the cut writes its pages past
 * the hole, which then reads as zeros at the full length. LMDB may then fail, or lose entries
 * without an error; the start-up audit (log-audit.ts) is what notices the lost entries.
 */
export function checkLmdbFileLength(dir: string): void {
  const short = lmdbShortfall(dir);
  if (short) throw new DamagedLogFileError(short.message);
}

/** A data file shorter than its last commit's pages: its length, the length they need, and the refusal's words. */
export interface Shortfall {
  size: number;
  needed: number;
  message: string;
}

/**
 * How much shorter data.mdb is than the pages its newest meta page counts, or null when it is
 * long enough (or its layout is not recognised). LMDB counts pages it allocated and then freed
 * in the same commit without ever writing them, so a short file is not always a cut one:
 * lmdb-log.ts tells the two apart by reading every page the trees still use.
 */
export function lmdbShortfall(dir: string): Shortfall | null {
  const path = join(dir, 'data.mdb');
  if (!existsSync(path)) return null;
  const fd = openSync(path, 'r');
  try {
    const size = fstatSync(fd).size;
    const head = Buffer.alloc(8192);
    const read = readSync(fd, head, 0, head.length, 0);
    if (read < 4096) throw new DamagedLogFileError(`${path} is ${size} bytes: too short to be a database (it may have been truncated); restore the data directory from a backup`);
    const pageSize = head.readUInt32LE(AT.pageSize);
    if (head.readUInt32LE(AT.magic) !== MAGIC || pageSize < 512 || pageSize > 4096 || (pageSize & (pageSize - 1)) !== 0) return null;
    let best: { pages: number; txn: bigint } | null = null;
    for (const o of [0, pageSize]) {
      if (o + AT.txnId + 8 > read || head.readUInt32LE(o + AT.magic) !== MAGIC) continue;
      const txn = head.readBigUInt64LE(o + AT.txnId);
      const pages = Number(head.readBigUInt64LE(o + AT.lastPage)) + 1;
      if (!best || txn > best.txn) best = { pages, txn };
    }
    if (!best) return null;
    const needed = best.pages * pageSize;
    if (size >= needed) return null;
    return { size, needed, message: `${path} is truncated: ${size} bytes, but its last commit uses ${needed}. Opening it would crash the process; restore the data directory from a backup` };
  } finally {
    closeSync(fd);
  }
}
