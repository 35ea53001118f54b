import { open, rename, unlink } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * Replaces `dir/name` with `chunks` so that a crash leaves the old file or the new one, never a
 * mix: written to `name.tmp`, fsynced, renamed into place, the directory fsynced. When any step
 * fails the temporary file is removed before the error is passed on.
 */
export async function writeFileDurably(dir: string, name: string, chunks: readonly Uint8Array[]): Promise<void> {
  const final = join(dir, name);
  const temp = `${final}.tmp`;
  try {
    const file = await open(temp, 'w');
    try {
      for (const chunk of chunks) await file.write(chunk);
      await file.sync();
    } finally {
      await file.close();
    }
    await rename(temp, final);
  } catch (err) {
    await unlink(temp).catch(() => undefined);
    throw err;
  }
  await syncDirectory(dir);
}

/** Makes the names in `dir` durable (a file created, renamed or deleted there). */
export async function syncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
