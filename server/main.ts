import { readConfig } from './config.js';
import { createLogger } from './logger.js';
import { startService } from './service.js';

let config;
try {
  config = readConfig();
} catch (err) {
  console.error(`configuration error: ${(err as Error).message}`);
  process.exit(2);
}
const logger = createLogger(config.logLevel);

try {
  const service = await startService(config, logger);
  const stop = (signal: string): void => {
    logger.info({ signal }, 'shutting down');
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
} catch (err) {
  logger.fatal({ err }, `could not start: ${(err as Error).message}`);
  process.exit(1);
}
