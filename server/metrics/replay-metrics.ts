import { Gauge, type Registry } from 'prom-client';

export interface ReplayMetrics {
  progress(applied: number, total: number): void;
  finished(entries: number, ms: number): void;
}

/**
 * Start-up replay. It applies the log a slice at a time and answers requests between slices, so
 * a scrape during a long replay sees how far it has come.
 */
export function replayMetrics(registry: Registry): ReplayMetrics {
  const gauge = (name: string, help: string): Gauge => new Gauge({ name, help, registers: [registry] });
  const done = gauge('vgdb_replay_done', '1 once the log has been replayed into the views at start-up, else 0');
  const applied = gauge('vgdb_replay_entries_applied', 'Log entries applied by the start-up replay');
  const toApply = gauge('vgdb_replay_entries_total', 'Log entries the start-up replay had to apply (after the snapshot it loaded)');
  const duration = gauge('vgdb_replay_duration_seconds', 'How long the start-up replay took, snapshot loading included');
  return {
    progress(entries, total) {
      applied.set(entries);
      toApply.set(total);
    },
    finished(entries, ms) {
      applied.set(entries);
      toApply.set(entries);
      duration.set(ms / 1000);
      done.set(1);
    },
  };
}
