/** What went wrong, in one line for a log: `RangeError: Maximum call stack size exceeded`. */
export function errorSummary(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}
