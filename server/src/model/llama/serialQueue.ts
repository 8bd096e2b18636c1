/**
 * Runs async operations one at a time, in call order. A session's KV cache holds one token
 * sequence, so two interleaved operations would erase each other's prefix.
 */
export class SerialQueue {
  private tail: Promise<void> = Promise.resolve();

  /**
   * Run `operation` after every earlier one has settled. If `signal` aborts before it
   * starts (while queued), it never runs: the call settles at once with `onAborted()`,
   * or rejects with the signal's reason when no `onAborted` is given. Stale work thus
   * never holds up fresh work.
   */
  async run<T>(signal: AbortSignal | undefined, operation: () => Promise<T>, onAborted?: () => T): Promise<T> {
    const previous = this.tail;
    let finish!: () => void;
    const ours = new Promise<void>((resolve) => (finish = resolve));
    this.tail = previous.then(() => ours);
    try {
      if (await abortedBefore(previous, signal)) {
        if (onAborted) return onAborted();
        throw signal!.reason;
      }
      return await operation();
    } finally {
      finish();
    }
  }
}

/** Resolves true if `signal` aborts before `previous` settles, false otherwise. */
function abortedBefore(previous: Promise<void>, signal: AbortSignal | undefined): Promise<boolean> {
  if (!signal) return previous.then(() => false);
  if (signal.aborted) return Promise.resolve(true);
  return new Promise<boolean>((resolve) => {
    const onAbort = () => resolve(true);
    signal.addEventListener('abort', onAbort, { once: true });
    void previous.then(() => {
      signal.removeEventListener('abort', onAbort);
      resolve(signal.aborted);
    });
  });
}
