import { Counter, Histogram, type Registry } from 'prom-client';
import type { EngineObserver } from '../../storage/engine/engine.js';

/** The engine's write path: log append latency (to the fsynced commit) and operations applied by kind. */
export function writeMetrics(registry: Registry): EngineObserver {
  const appendLatency = new Histogram({
    name: 'vgdb_log_append_duration_seconds',
    help: 'Time from handing a write to the log to its durable acknowledgement (the fsynced commit)',
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [registry],
  });
  const applied = new Counter({
    name: 'vgdb_operations_applied_total',
    help: 'Write operations applied to the views since start-up (replay not counted), by kind',
    labelNames: ['kind'] as const,
    registers: [registry],
  });
  return {
    appendDurable: (ms) => appendLatency.observe(ms / 1000),
    applied: (kind) => applied.inc({ kind }),
  };
}
