import { open } from 'lmdb';

/**
 * Run as a child process by lmdb-log.ts: opens the LMDB environment in the directory given as
 * the first argument read-only and reads every key and value of every database in it, so LMDB
 * visits each page its trees use; exits 0 when all of them read back. It runs apart because
 * LMDB aborts the whole process on some damaged pages (an assertion) instead of returning an
 * error.
 */
const env = open({ path: process.argv[2]!, noSubdir: false, readOnly: true });
// The names first: opening a database inside the root's iteration ends the iteration's read.
const names = [...env.getKeys()].filter((name): name is string => typeof name === 'string');
for (const name of names) {
  // Fetching each entry copies its value, which reads its pages (overflow pages included).
  env.openDB<Uint8Array, Uint8Array>({ name, encoding: 'binary', keyEncoding: 'binary' }).getRange().forEach(() => undefined);
}
await env.close();
