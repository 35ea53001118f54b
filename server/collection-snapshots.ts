import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { open, rename, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { badRequest, notFound } from '../storage/errors.js';

/**
 * Qdrant's collection snapshots, kept as our export files in
 * <data dir>/collection-snapshots/<collection>/<name>.snapshot with a .sha256 beside each. A
 * snapshot reads the collection (it is not a log entry); restoring one is an import.
 */
export interface SnapshotDescription {
  name: string;
  creation_time: string;
  size: number;
  checksum: string;
}

/**
 * What a snapshot is written from: an export (export-writer.ts's, encoded on the request thread,
 * or a Cypher replica's), with the SHA-256 of its bytes (hex) when its encoder hashed them as it
 * went (a replica does, off the request thread), read once the stream has ended.
 */
export interface SnapshotSource {
  stream(pause?: () => Promise<void>): AsyncIterable<Uint8Array>;
  release(): void;
  readonly sha256?: string | null;
}

const NAME = /^[A-Za-z0-9_.-]{1,255}\.snapshot$/;

export class CollectionSnapshots {
  constructor(private readonly root: string) {}

  dirOf(collection: string): string {
    return join(this.root, collection);
  }

  /** The file of a snapshot that exists; a 404 otherwise, a 400 for a name that is not one. */
  fileOf(collection: string, name: string): string {
    if (!NAME.test(name)) throw badRequest(`"${name.slice(0, 80)}" is not a snapshot name (letters, digits, _ . - and ".snapshot")`);
    const file = join(this.dirOf(collection), name);
    try {
      statSync(file);
    } catch {
      throw notFound(`snapshot "${name}" of collection "${collection}" not found`);
    }
    return file;
  }

  /**
   * Writes a collection's export as a new snapshot: streamed to a temporary file, awaiting `pause`
   * between slices of its encoding, fsynced, renamed into place.
   */
  async create(collection: string, exp: SnapshotSource, now: Date, pause?: () => Promise<void>): Promise<SnapshotDescription> {
    const dir = this.dirOf(collection);
    mkdirSync(dir, { recursive: true });
    const stamp = now.toISOString().replace(/[:.]/g, '-');
    const name = `${collection}-${stamp}.snapshot`;
    const final = join(dir, name);
    const temp = `${final}.tmp`;
    const hash = 'sha256' in exp ? null : createHash('sha256');
    let size = 0;
    let checksum: string | null | undefined;
    try {
      const file = await open(temp, 'w');
      try {
        for await (const chunk of exp.stream(pause)) {
          hash?.update(chunk);
          size += chunk.length;
          await file.write(chunk);
        }
        await file.sync();
      } finally {
        await file.close();
      }
      checksum = hash ? hash.digest('hex') : exp.sha256;
      if (!checksum) throw new Error('the export written as a snapshot was not hashed');
      await rename(temp, final);
    } catch (err) {
      exp.release();
      await unlink(temp).catch(() => undefined);
      throw err;
    }
    await writeFile(`${final}.sha256`, checksum);
    return { name, creation_time: now.toISOString().replace(/Z$/, ''), size, checksum };
  }

  list(collection: string): SnapshotDescription[] {
    let names: string[];
    try {
      names = readdirSync(this.dirOf(collection)).filter((n) => NAME.test(n));
    } catch {
      return [];
    }
    return names.sort().map((name) => {
      const file = join(this.dirOf(collection), name);
      const stat = statSync(file);
      let checksum = '';
      try {
        checksum = readFileSync(`${file}.sha256`, 'utf8').trim();
      } catch {
        checksum = createHash('sha256').update(readFileSync(file)).digest('hex');
      }
      return { name, creation_time: stat.mtime.toISOString().replace(/Z$/, ''), size: stat.size, checksum };
    });
  }

  async remove(collection: string, name: string): Promise<void> {
    const file = this.fileOf(collection, name);
    await unlink(file);
    await unlink(`${file}.sha256`).catch(() => undefined);
  }
}
