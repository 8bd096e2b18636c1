/**
 * Handler guards: an exception in a handler (a bug, or a malformed message the types did not
 * foresee) becomes a logged error and an empty answer. The server never crashes and never
 * leaves an unhandled rejection behind.
 */
import type { Logger } from '../util/logger.js';

function describe(error: unknown): string {
  return error instanceof Error ? (error.stack ?? error.message) : String(error);
}

/** Wraps a request handler: on an exception it logs and answers `fallback()`. */
export function guardRequest<P, R, A extends unknown[]>(
  logger: Logger,
  method: string,
  fallback: () => R,
  handler: (params: P, ...rest: A) => R | Promise<R>,
): (params: P, ...rest: A) => Promise<R> {
  return async (params, ...rest) => {
    try {
      return await handler(params, ...rest);
    } catch (error) {
      logger.error(`${method} failed: ${describe(error)}`);
      return fallback();
    }
  };
}

/** Wraps a notification handler: on an exception it logs; nothing is answered. */
export function guardNotification<P>(
  logger: Logger,
  method: string,
  handler: (params: P) => void | Promise<void>,
): (params: P) => void {
  return (params) => {
    const logFailure = (error: unknown): void => logger.error(`${method} failed: ${describe(error)}`);
    try {
      const result = handler(params);
      if (result instanceof Promise) result.catch(logFailure);
    } catch (error) {
      logFailure(error);
    }
  };
}
