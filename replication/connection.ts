import { connect, type NatsConnection } from '@nats-io/transport-node';

/**
 * A connection to the NATS cluster (SERVICE_NATS_URL, comma-separated servers) that never gives
 * up: start-up waits for a first server, and a lost server is replaced by another of the
 * cluster's as long as one answers.
 */
export function connectNats(servers: readonly string[], name: string): Promise<NatsConnection> {
  return connect({ servers: [...servers], name, waitOnFirstConnect: true, maxReconnectAttempts: -1, reconnectTimeWait: 250, pingInterval: 5_000 });
}
