/** The process logger: stderr (stdout carries the protocol), level from REPOSHAPLEY_LOG. */
import { createStreamLogger, type Logger, type LogLevel } from '../util/logger.js';

/** Environment variable that sets the log level. */
export const LOG_LEVEL_ENV = 'REPOSHAPLEY_LOG';

const LEVELS: readonly LogLevel[] = ['debug', 'info', 'warn', 'error'];

/** REPOSHAPLEY_LOG=debug|info|warn|error; anything else is `fallback`. */
export function logLevelFromEnv(env: NodeJS.ProcessEnv = process.env, fallback: LogLevel = 'info'): LogLevel {
  const value = env[LOG_LEVEL_ENV]?.trim().toLowerCase();
  return LEVELS.includes(value as LogLevel) ? (value as LogLevel) : fallback;
}

/** A stderr logger for one process, at the level the environment asks for. */
export function createProcessLogger(scope: string, fallback: LogLevel = 'info'): Logger {
  return createStreamLogger(scope, logLevelFromEnv(process.env, fallback));
}
