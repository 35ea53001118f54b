import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Counter, Gauge, type Registry } from 'prom-client';

export interface SnapshotReport {
  ms: number;
  bytes: number;
  error?: Error;
}

/** When the newest snapshot file was written, or null when there is none. */
function newestSnapshotTime(dir: string): number | null {
  let newest: number | null = null;
  try {
    for (const name of readdirSync(dir)) {
      if (!name.endsWith('.snap')) continue;
      const mtime = statSync(join(dir, name)).mtimeMs;
      if (newest === null || mtime > newest) newest = mtime;
    }
  } catch {
    return null;
  }
  return newest;
}

export interface SnapshotMetrics {
  /** Feeds the engine's onSnapshot reports. */
  record(report: SnapshotReport): void;
  /** Takes the age of a snapshot loaded at start-up from its file in `dir`. */
  loadedFrom(dir: string): void;
}

/** Snapshot age (NaN until there is one), the last one's duration and size, and failures. */
export function snapshotMetrics(registry: Registry, now: () => number = Date.now): SnapshotMetrics {
  let lastAt: number | null = null;
  new Gauge({
    name: 'vgdb_snapshot_age_seconds',
    help: 'Seconds since the newest snapshot was written (NaN: no snapshot yet)',
    registers: [registry],
    collect() {
      this.set(lastAt === null ? Number.NaN : (now() - lastAt) / 1000);
    },
  });
  const duration = new Gauge({ name: 'vgdb_snapshot_last_duration_seconds', help: 'How long the last snapshot written since start-up took', registers: [registry] });
  const size = new Gauge({ name: 'vgdb_snapshot_last_bytes', help: 'Size of the last snapshot written since start-up', registers: [registry] });
  const failures = new Counter({ name: 'vgdb_snapshot_failures_total', help: 'Snapshots that could not be written', registers: [registry] });
  return {
    record({ ms, bytes, error }) {
      if (error) {
        failures.inc();
        return;
      }
      lastAt = now();
      duration.set(ms / 1000);
      size.set(bytes);
    },
    loadedFrom(dir) {
      lastAt ??= newestSnapshotTime(dir);
    },
  };
}
