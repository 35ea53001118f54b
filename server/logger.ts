import { pino, type Logger } from 'pino';
import type { LogLevel } from './config.js';

/** JSON logs on stdout. The Authorization header is never logged. */
export function createLogger(level: LogLevel): Logger {
  return pino({ level, redact: ['req.headers.authorization', 'headers.authorization'] });
}
