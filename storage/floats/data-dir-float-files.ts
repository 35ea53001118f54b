import { closeSync, fstatSync, mkdirSync, openSync, readSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { FloatFile, FloatFiles } from '../views/float-file.js';
import { collectGarbageSoon } from './collect-garbage.js';

/** Closes the file of a store that was dropped without letting go of it (a deleted collection). */
const closer = new FinalizationRegistry<{ fd: number; live: Set<number> }>(({ fd, live }) => {
  live.delete(fd);
  closeSync(fd);
});

let opened = 0;

/**
 * Float files in `<data dir>/floats`. Each is unlinked as soon as it is open: it is a derived view
 * that no later run reads, so nothing stale is left behind by a crash, and its space comes back
 * when the descriptor closes (explicitly, when the vectors return to RAM, or once the store that
 * held it is garbage).
 */
export class DataDirFloatFiles implements FloatFiles {
  private readonly dir: string;
  /** The descriptors of the files open now: unlinked, so `du` of the data dir does not count them (diskBytes does). */
  private readonly live = new Set<number>();

  constructor(dataDir: string) {
    this.dir = join(dataDir, 'floats');
    mkdirSync(this.dir, { recursive: true });
  }

  open(dim: number): FloatFile {
    const path = join(this.dir, `${process.pid}-${++opened}.f32`);
    const fd = openSync(path, 'w+');
    unlinkSync(path);
    const file = new DescriptorFloatFile(fd, dim * 4, () => this.live.delete(fd));
    closer.register(file, { fd, live: this.live }, file);
    this.live.add(fd);
    return file;
  }

  /** Bytes of disk the open float files take (their allocated blocks: a file with holes counts what it holds). */
  diskBytes(): number {
    let bytes = 0;
    for (const fd of this.live) bytes += fstatSync(fd).blocks * 512;
    return bytes;
  }

  released(): void {
    collectGarbageSoon();
  }
}

class DescriptorFloatFile implements FloatFile {
  constructor(
    private readonly fd: number,
    private readonly rowBytes: number,
    private readonly onClose: () => void,
  ) {}

  write(slot: number, from: Float32Array, count: number): void {
    const bytes = count * this.rowBytes;
    let done = 0;
    while (done < bytes) done += writeSync(this.fd, from, done, bytes - done, slot * this.rowBytes + done);
  }

  read(slot: number, into: Float32Array, count: number): void {
    const bytes = count * this.rowBytes;
    let done = 0;
    while (done < bytes) {
      const n = readSync(this.fd, into, done, bytes - done, slot * this.rowBytes + done);
      // Past the end: slots never written read as zeros.
      if (n === 0) {
        new Uint8Array(into.buffer, into.byteOffset + done, bytes - done).fill(0);
        return;
      }
      done += n;
    }
  }

  close(): void {
    closer.unregister(this);
    this.onClose();
    closeSync(this.fd);
  }
}
