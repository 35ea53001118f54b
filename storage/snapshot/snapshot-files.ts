import { mkdirSync, readdirSync, readFileSync, unlinkSync } from 'node:fs';
import { open, rename } from 'node:fs/promises';
import { join } from 'node:path';
import { decodeSnapshot, type Snapshot } from './snapshot-codec.js';
import type { SnapshotStore } from './snapshot-store.js';

const NAME = /^snapshot-(\d{16})\.snap$/;
const KEEP = 2;
const fileName = (opId: number): string => `snapshot-${String(opId).padStart(16, '0')}.snap`;

/**
 * Snapshots as files in a directory. A snapshot is written to a temporary file, fsynced, renamed
 * into place and the directory fsynced, so a crash mid-write leaves the previous one intact.
 * The two newest are kept; a damaged one is skipped for the one before it.
 */
export class SnapshotFiles implements SnapshotStore {
  constructor(private readonly dir: string, private readonly onSkip: (file: string, reason: string) => void = () => {}) {
    mkdirSync(dir, { recursive: true });
  }

  /** The operation_ids of the snapshots on disk, newest first. */
  list(): number[] {
    return this.names().map((n) => Number(NAME.exec(n)![1]));
  }

  private names(): string[] {
    return readdirSync(this.dir).filter((f) => NAME.test(f)).sort().reverse();
  }

  loadNewest(atMost = Number.MAX_SAFE_INTEGER): Snapshot | null {
    for (const name of this.names()) {
      if (Number(NAME.exec(name)![1]) > atMost) continue;
      try {
        return decodeSnapshot(readFileSync(join(this.dir, name)));
      } catch (err) {
        this.onSkip(name, (err as Error).message);
      }
    }
    return null;
  }

  async save(opId: number, chunks: readonly Uint8Array[]): Promise<void> {
    const final = join(this.dir, fileName(opId));
    const temp = `${final}.tmp`;
    const file = await open(temp, 'w');
    try {
      for (const chunk of chunks) await file.write(chunk);
      await file.sync();
    } finally {
      await file.close();
    }
    await rename(temp, final);
    const dir = await open(this.dir, 'r');
    try {
      await dir.sync();
    } finally {
      await dir.close();
    }
    for (const old of this.names().slice(KEEP)) unlinkSync(join(this.dir, old));
    for (const stray of readdirSync(this.dir).filter((f) => f.endsWith('.tmp') && f !== `${fileName(opId)}.tmp`)) unlinkSync(join(this.dir, stray));
  }
}
