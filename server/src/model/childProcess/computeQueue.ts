/**
 * The model host's one evaluation at a time, shared fairly by its servers. llama.cpp's threads
 * take every core they are given, so two evaluations at once only slow each other down; instead
 * each runs alone on all of them, and the queue decides who is next:
 *
 * - clients take turns (round robin by connection), so one window typing fast cannot starve another;
 * - within a client the newest request goes first: it is the keystroke the user is looking at;
 * - a request cancelled while it waits never starts (its client typed on or closed).
 */

interface Waiter {
  client: number;
  order: number;
  start: () => void;
}

/** The outcome of {@link ComputeQueue.run}: the task's value and how long it waited for others. */
export interface QueuedResult<T> {
  value: T;
  waitedMs: number;
}

export class ComputeQueue {
  private running = false;
  private lastClient = -1;
  private nextOrder = 0;
  private readonly waiting: Waiter[] = [];

  constructor(private readonly now: () => number = () => performance.now()) {}

  /**
   * Runs `task` when it is this request's turn. Rejects with the signal's reason, without running
   * it, if `signal` aborts first.
   */
  async run<T>(client: number, signal: AbortSignal | undefined, task: () => Promise<T>): Promise<QueuedResult<T>> {
    signal?.throwIfAborted();
    const enqueuedAt = this.now();
    if (this.running || this.waiting.length > 0) await this.turn(client, signal);
    else this.take(client);
    const waitedMs = this.now() - enqueuedAt;
    try {
      return { value: await task(), waitedMs };
    } finally {
      this.running = false;
      this.startNext();
    }
  }

  /** Requests waiting now (status, tests). */
  get depth(): number {
    return this.waiting.length;
  }

  private turn(client: number, signal: AbortSignal | undefined): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = { client, order: this.nextOrder++, start: () => {
        signal?.removeEventListener('abort', giveUp);
        resolve();
      } };
      const giveUp = (): void => {
        const index = this.waiting.indexOf(waiter);
        if (index >= 0) this.waiting.splice(index, 1);
        reject(signal!.reason);
      };
      this.waiting.push(waiter);
      signal?.addEventListener('abort', giveUp, { once: true });
      this.startNext();
    });
  }

  private startNext(): void {
    if (this.running || this.waiting.length === 0) return;
    const next = this.pick();
    this.waiting.splice(this.waiting.indexOf(next), 1);
    this.take(next.client);
    next.start();
  }

  private take(client: number): void {
    this.running = true;
    this.lastClient = client;
  }

  /** The first client after the last one served (by id, wrapping), and that client's newest request. */
  private pick(): Waiter {
    const clients = [...new Set(this.waiting.map((w) => w.client))].sort((a, b) => a - b);
    const client = clients.find((c) => c > this.lastClient) ?? clients[0]!;
    const theirs = this.waiting.filter((w) => w.client === client);
    return theirs.reduce((newest, w) => (w.order > newest.order ? w : newest));
  }
}
