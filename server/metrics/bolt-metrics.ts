import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

/** What the Bolt listener reports: each message by kind and outcome, its time, and the open connections. */
export interface BoltMetrics {
  /** One client message handled: RUN, PULL, BEGIN, COMMIT... and whether it succeeded, failed or was ignored. */
  message(kind: string, seconds: number, outcome: 'success' | 'failure' | 'ignored'): void;
  /** Reads the open connections on scrape. */
  watchConnections(count: () => number): void;
}

export function boltMetrics(registry: Registry): BoltMetrics {
  const messages = new Counter({
    name: 'vgdb_bolt_messages_total',
    help: 'Bolt messages handled, by message (RUN, PULL, BEGIN, COMMIT, ...) and outcome (success, failure, ignored)',
    labelNames: ['message', 'outcome'] as const,
    registers: [registry],
  });
  const latency = new Histogram({
    name: 'vgdb_bolt_message_duration_seconds',
    help: 'Time to handle a Bolt message (a RUN includes making its first rows; a PULL, streaming its batch), by message',
    labelNames: ['message'] as const,
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  let connections = (): number => 0;
  new Gauge({
    name: 'vgdb_bolt_connections',
    help: 'Open Bolt connections',
    registers: [registry],
    collect() {
      this.set(connections());
    },
  });
  return {
    message(kind, seconds, outcome) {
      messages.inc({ message: kind, outcome });
      latency.observe({ message: kind }, seconds);
    },
    watchConnections(count) {
      connections = count;
    },
  };
}
