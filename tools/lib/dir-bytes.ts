import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** Bytes the files under `dir` take (their lengths), subfolders included. */
export function dirBytes(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    total += entry.isDirectory() ? dirBytes(path) : statSync(path).size;
  }
  return total;
}
