/**
 * The model host's one evaluation at a time, shared by its servers. llama.cpp's threads take every
 * core they are given, so two evaluations at once only slow each other down; instead each runs
 * alone on all of them, and the queue decides who is next: **the least work first** (shortest
 * remaining processing time), by each request's estimate of the tokens it still has to evaluate.
 *
 * - A keystroke's request (a few new tokens on a cached prompt) goes before another window's cold
 *   prompt (hundreds), and a running long evaluation hands its turn to a shorter request at its next
 *   prompt chunk or generated token ({@link Turn.pause}); so one window's 3-second prompt costs
 *   another's keystroke about one chunk (~250 ms), not the whole prompt.
 * - Requests of equal work run one after another, not interleaved: three windows asking for the
 *   same cold prompt at once wait 1, 2 and 3 prompts' time rather than 3 each.
 * - A waiting request gains priority with age ({@link AGING_MS_PER_TOKEN}), so a long one is never
 *   starved by a stream of short ones.
 * - A request cancelled while it waits never starts (its client typed on or closed).
 */

/** A request's priority improves by one token of work per this many milliseconds it waits. */
export const AGING_MS_PER_TOKEN = 20;

interface Waiter {
  order: number;
  /** Estimated tokens still to evaluate. */
  work: number;
  enqueuedAt: number;
  start: () => void;
}

/** What a running task holds: the right to evaluate, which it hands to shorter requests between chunks. */
export interface Turn {
  /**
   * Lets a waiting request with less work than `remainingWork` run first, then resumes in turn;
   * returns at once when there is none. Rejects with the signal's reason if the request is
   * cancelled meanwhile (the task should then stop: it no longer holds the turn).
   */
  pause(remainingWork: number): Promise<void>;
}

/** The outcome of {@link ComputeQueue.run}: the task's value and how long it waited for others. */
export interface QueuedResult<T> {
  value: T;
  waitedMs: number;
}

export class ComputeQueue {
  /** The request that holds the turn (undefined: free). */
  private holder?: symbol;
  private nextOrder = 0;
  private readonly waiting: Waiter[] = [];

  constructor(private readonly now: () => number = () => performance.now()) {}

  /**
   * Runs `task` when it is this request's turn; `work` estimates the tokens it will evaluate.
   * Rejects with the signal's reason, without running it, if `signal` aborts first. `waitedMs`
   * counts the time before it started and while paused.
   */
  async run<T>(work: number, signal: AbortSignal | undefined, task: (turn: Turn) => Promise<T>): Promise<QueuedResult<T>> {
    signal?.throwIfAborted();
    const ticket = Symbol('request');
    let waitedMs = 0;
    const acquire = async (remaining: number): Promise<void> => {
      const since = this.now();
      if (this.holder !== undefined || this.waiting.length > 0) await this.turn(remaining, signal, ticket);
      else this.holder = ticket;
      waitedMs += this.now() - since;
    };
    const pause = async (remainingWork: number): Promise<void> => {
      if (this.holder !== ticket || this.waiting.length === 0 || this.priority(this.next()) >= remainingWork) return;
      this.release();
      await acquire(remainingWork);
    };
    await acquire(work);
    try {
      return { value: await task({ pause }), waitedMs };
    } finally {
      if (this.holder === ticket) this.release();
    }
  }

  /** Requests waiting now (status, tests). */
  get depth(): number {
    return this.waiting.length;
  }

  private release(): void {
    this.holder = undefined;
    if (this.waiting.length === 0) return;
    const next = this.next();
    this.waiting.splice(this.waiting.indexOf(next), 1);
    next.start();
  }

  private turn(work: number, signal: AbortSignal | undefined, ticket: symbol): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = { order: this.nextOrder++, work, enqueuedAt: this.now(), start: () => {
        signal?.removeEventListener('abort', giveUp);
        this.holder = ticket;
        resolve();
      } };
      const giveUp = (): void => {
        const index = this.waiting.indexOf(waiter);
        if (index >= 0) this.waiting.splice(index, 1);
        reject(signal!.reason);
      };
      this.waiting.push(waiter);
      signal?.addEventListener('abort', giveUp, { once: true });
      if (this.holder === undefined) this.release();
    });
  }

  /** The waiter with the least work left, aged; the earliest of equals. */
  private next(): Waiter {
    return this.waiting.reduce((best, w) => {
      const [a, b] = [this.priority(w), this.priority(best)];
      return a < b || (a === b && w.order < best.order) ? w : best;
    });
  }

  private priority(waiter: Waiter): number {
    return waiter.work - (this.now() - waiter.enqueuedAt) / AGING_MS_PER_TOKEN;
  }
}
