import { readConfig } from './config.js';
import { LogOutput } from './log-output.js';
import { createLogger } from './logger.js';
import { startService, type RunningService } from './service.js';

let config;
try {
  config = readConfig();
} catch (err) {
  console.error(`configuration error: ${(err as Error).message}`);
  process.exit(2);
}
// Log lines go out without ever blocking: a stdout that cannot take them (full disk, nobody
// reading the pipe) loses lines, counted, instead of freezing the service.
const output = LogOutput.stdout();
const logger = createLogger(config.logLevel, output);

let service: RunningService | null = null;
const stop = (signal: string): void => {
  logger.info({ signal }, 'shutting down');
  // Start-up writes only in atomic steps (LMDB commits; snapshot and mark files renamed into
  // place), so leaving before it has finished loses nothing.
  if (!service) process.exit(0);
  service.close().then(
    () => process.exit(0),
    (err: unknown) => {
      logger.error({ err }, 'shutdown failed');
      process.exit(1);
    },
  );
};
process.once('SIGTERM', () => stop('SIGTERM'));
process.once('SIGINT', () => stop('SIGINT'));
// lmdb reports a failed fsync a second time as an unhandled rejection; the engine has already
// stopped taking writes by then, so it is logged rather than allowed to kill the process.
process.on('unhandledRejection', (err) => logger.error({ err }, 'unhandled rejection'));

try {
  service = await startService(config, logger, { droppedLogLines: () => output.dropped });
} catch (err) {
  logger.fatal({ err }, `could not start: ${(err as Error).message}`);
  process.exit(1);
}
