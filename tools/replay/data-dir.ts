import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Refuses a --data-dir that is not a database before anything opens it: opening would create
 * the directory and an empty database, and a mistyped path would then "verify" as 0 entries.
 */
export function checkDataDir(dir: string): void {
  if (!existsSync(dir)) throw new Error(`no data directory at ${dir}; check --data-dir (default: $SERVICE_DATA_DIR, else ./data)`);
  if (!statSync(dir).isDirectory()) throw new Error(`${dir} is not a directory; --data-dir names the server's data directory`);
  if (!existsSync(join(dir, 'data.mdb'))) throw new Error(`${dir} holds no database (no data.mdb in it); check --data-dir`);
}
