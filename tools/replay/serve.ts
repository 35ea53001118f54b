import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { Engine } from '../../storage/engine/engine.js';
import { createApp } from '../../server/app.js';
import { readConfig } from '../../server/config.js';
import { createServiceServer } from '../../server/listener.js';
import { createServiceMetrics } from '../../server/metrics/service-metrics.js';
import { Readiness } from '../../server/readiness.js';
import type { Tool } from './commands.js';

/**
 * serve --until OP --port P: the state as it was right after OP, served read-only over the same
 * HTTP API (auth, TLS and limits from the SERVICE_* variables) until SIGINT or SIGTERM. Every
 * write is a 403; nothing is written to the data directory.
 */
export async function serve(tool: Tool, until: number, port: number, host: string): Promise<number> {
  const engine = new Engine(tool.log, { snapshots: tool.snapshots, readOnly: `read-only: this server (npm run replay -- serve) shows the state right after operation ${until}` });
  const applied = engine.replay(until);
  engine.flushIndex();
  const config = { ...readConfig(process.env), host, port };
  const metrics = createServiceMetrics();
  metrics.watch(engine);
  const readiness = new Readiness(engine);
  readiness.markReplayed();
  const app = createApp({ engine, config, logger: pino({ level: 'warn' }), readiness, version: 'replay', metrics });
  const server = createServiceServer(config, app.callback());
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const scheme = config.tlsCert ? 'https' : 'http';
  tool.print(`serving the state right after operation ${engine.lastAppliedOperationId} (${applied} log entries replayed) read-only on ${scheme}://${host}:${(server.address() as AddressInfo).port}; Ctrl-C stops`);
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
  await engine.close();
  return 0;
}
