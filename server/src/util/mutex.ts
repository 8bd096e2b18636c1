/**
 * A FIFO lock whose waiters can give up: work aborted while queued leaves the queue at once
 * instead of running stale (STYLE: stale work never blocks fresh work). Used as the engine's
 * model lock (the model is one resource).
 */
export class Mutex {
  private locked = false;
  private readonly waiters: (() => void)[] = [];

  /** Resolves to a release function, or undefined if `signal` aborted first. */
  acquire(signal?: AbortSignal): Promise<(() => void) | undefined> {
    if (signal?.aborted) return Promise.resolve(undefined);
    if (!this.locked) {
      this.locked = true;
      return Promise.resolve(this.releaser());
    }
    return new Promise((resolve) => {
      const wake = (): void => {
        signal?.removeEventListener('abort', giveUp);
        resolve(this.releaser());
      };
      const giveUp = (): void => {
        const index = this.waiters.indexOf(wake);
        if (index >= 0) this.waiters.splice(index, 1);
        resolve(undefined);
      };
      this.waiters.push(wake);
      signal?.addEventListener('abort', giveUp, { once: true });
    });
  }

  private releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.waiters.shift();
      if (next) next();
      else this.locked = false;
    };
  }
}
