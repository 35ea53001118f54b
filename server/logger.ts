import { pino, type Logger } from 'pino';
import type { LogLevel } from './config.js';
import { LogOutput } from './log-output.js';

/** JSON logs on stdout (or `output`); credentials are never logged (request lines carry no headers). */
export function createLogger(level: LogLevel, output: LogOutput = LogOutput.stdout()): Logger {
  const logger = pino({ level, redact: ['req.headers.authorization', 'req.headers["api-key"]', 'headers.authorization', 'headers["api-key"]'] }, output);
  output.onResumed((droppedLines) => logger.warn({ droppedLines }, `log output works again; ${droppedLines} lines were dropped while it could not take them`));
  return logger;
}
