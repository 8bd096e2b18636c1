/**
 * A FIFO lock whose waiters can give up: a completion aborted while queued leaves the queue at
 * once instead of running stale work (STYLE: stale work never blocks fresh work).
 */
export class Mutex {
  private locked = false;
  private readonly waiters: { grant: () => void }[] = [];

  /** Resolves to a release function, or undefined if `signal` aborted first. */
  acquire(signal?: AbortSignal): Promise<(() => void) | undefined> {
    if (signal?.aborted) return Promise.resolve(undefined);
    if (!this.locked) {
      this.locked = true;
      return Promise.resolve(this.releaser());
    }
    return new Promise((resolve) => {
      const waiter = { grant: () => resolve(this.releaser()) };
      this.waiters.push(waiter);
      signal?.addEventListener('abort', () => {
        const at = this.waiters.indexOf(waiter);
        if (at === -1) return;
        this.waiters.splice(at, 1);
        resolve(undefined);
      }, { once: true });
    });
  }

  private releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.waiters.shift();
      if (next) next.grant();
      else this.locked = false;
    };
  }
}
