import { open } from 'lmdb';
import { unframeRecord } from './record.js';

/**
 * Run as a child process by lmdb-log.ts: opens the LMDB environment in the directory given as
 * the first argument read-only and reads every key and value of every database in it, so LMDB
 * visits each page its trees use; exits 0 when all of them read back. It runs apart because
 * LMDB aborts the whole process on some damaged pages (an assertion) instead of returning an
 * error. A large value's overflow pages that were in the missing part read back as zeros
 * without any error from LMDB, so each log record's checksum is checked too: a record that
 * fails it was cut.
 */
const env = open({ path: process.argv[2]!, noSubdir: false, readOnly: true });
// The names first: opening a database inside the root's iteration ends the iteration's read.
const names = [...env.getKeys()].filter((name): name is string => typeof name === 'string');
for (const name of names) {
  // Fetching each entry copies its value, which reads its pages (overflow pages included).
  // The log's keys are operation_ids, read as lmdb-log.ts writes them, so a failing record is named by its own.
  if (name === 'log') env.openDB<Uint8Array, number>({ name, encoding: 'binary' }).getRange().forEach(({ key, value }) => unframeRecord(value, key));
  else env.openDB<Uint8Array, Uint8Array>({ name, encoding: 'binary', keyEncoding: 'binary' }).getRange().forEach(() => undefined);
}
await env.close();
