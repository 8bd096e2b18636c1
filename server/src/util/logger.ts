/**
 * The one logging port. stdout carries the LSP protocol, so the server never uses console.*;
 * loggers write to stderr (or the LSP connection's console, which the lsp/ layer provides).
 */
export interface Logger {
  debug(message: string): void;
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

const LEVEL_ORDER: Record<LogLevel, number> = { debug: 0, info: 1, warn: 2, error: 3 };

/** A logger writing `[level] [scope] message` lines to a stream (stderr by default). */
export function createStreamLogger(
  scope: string,
  minLevel: LogLevel = 'info',
  write: (line: string) => void = (line) => process.stderr.write(line + '\n'),
): Logger {
  const emit = (level: LogLevel) => (message: string) => {
    if (LEVEL_ORDER[level] >= LEVEL_ORDER[minLevel]) write(`[${level}] [${scope}] ${message}`);
  };
  return { debug: emit('debug'), info: emit('info'), warn: emit('warn'), error: emit('error') };
}

/** A logger that drops everything; for tests and library callers that want silence. */
export const silentLogger: Logger = { debug() {}, info() {}, warn() {}, error() {} };

/** A logger that records lines in memory; tests assert on what was logged. */
export function createMemoryLogger(): Logger & { lines: string[] } {
  const lines: string[] = [];
  const push = (level: LogLevel) => (message: string) => lines.push(`[${level}] ${message}`);
  return { lines, debug: push('debug'), info: push('info'), warn: push('warn'), error: push('error') };
}
