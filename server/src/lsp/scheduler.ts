/**
 * The request scheduler in front of `engine.complete`.
 *
 * - The LSP cancellation token becomes an AbortSignal here, once (house style).
 * - Automatic triggers wait `debounceMs` first; invoked ones go straight to the queue.
 * - A newer request for the same document supersedes older ones: they are aborted and
 *   answered at once, so stale work never delays the fresh answer.
 * - A request cancelled while it waits is answered at once.
 * - It does not serialize: the engine's model lock is the one queue a completion waits in
 *   (createEngine.ts), so a request passes one lock, not two in a row.
 */
import type { Logger } from '../util/logger.js';
import { toAbortSignal, type CancellationLike } from './converters.js';

/** Why a scheduled task produced no value. */
export type CancelReason = 'client' | 'superseded' | 'shutdown';

/** What a caller of {@link CompletionScheduler.schedule} gets back. Never rejects for cancellation. */
export type ScheduleResult<T> = { kind: 'done'; value: T } | { kind: 'cancelled'; reason: CancelReason };

/** Options of the scheduler. */
export interface SchedulerOptions {
  /** Read at every request, so settings changes apply to the next request. */
  debounceMs: () => number;
  logger: Logger;
}

/** One scheduled request: its abort controller and the one-shot answer to its caller. */
interface Ticket<T> {
  key: string;
  controller: AbortController;
  answer: (result: ScheduleResult<T>) => void;
  fail: (error: unknown) => void;
  answered: boolean;
}

/** Resolves after `ms`, or early (false) when the signal aborts. */
function sleep(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const onAbort = (): void => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve(true);
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** Debounces, supersedes and serializes completion work per document. */
export class CompletionScheduler {
  private readonly latest = new Map<string, Ticket<unknown>>();

  constructor(private readonly options: SchedulerOptions) {}

  /**
   * Runs `task` for document `key` unless a newer request for the same key, the client's
   * cancellation or shutdown comes first; in those cases answers `cancelled` immediately.
   */
  schedule<T>(
    key: string,
    trigger: 'automatic' | 'invoked',
    token: CancellationLike,
    task: (signal: AbortSignal) => Promise<T>,
  ): Promise<ScheduleResult<T>> {
    return new Promise<ScheduleResult<T>>((resolve, reject) => {
      const ticket: Ticket<T> = {
        key, controller: new AbortController(), answer: resolve, fail: reject, answered: false,
      };
      this.supersede(key);
      this.latest.set(key, ticket as Ticket<unknown>);
      const cancellation = toAbortSignal(token);
      cancellation.signal.addEventListener('abort', () => this.cancel(ticket, 'client'), { once: true });
      if (cancellation.signal.aborted) this.cancel(ticket, 'client');
      void this.run(ticket, trigger, task).finally(() => cancellation.dispose());
    });
  }

  /** Aborts and answers the pending or running request for `key`, if any. */
  supersede(key: string): void {
    const previous = this.latest.get(key);
    if (previous) this.cancel(previous, 'superseded');
  }

  /** Aborts and answers every request (server shutdown). */
  dispose(): void {
    for (const ticket of [...this.latest.values()]) this.cancel(ticket, 'shutdown');
  }

  private async run<T>(
    ticket: Ticket<T>, trigger: 'automatic' | 'invoked', task: (signal: AbortSignal) => Promise<T>,
  ): Promise<void> {
    const { signal } = ticket.controller;
    const debounceMs = trigger === 'automatic' ? Math.max(0, this.options.debounceMs()) : 0;
    if (debounceMs > 0 && !(await sleep(debounceMs, signal))) return;
    if (signal.aborted) return;
    try {
      const value = await task(signal);
      this.settle(ticket, { kind: 'done', value });
    } catch (error) {
      if (ticket.answered) this.options.logger.debug(`completion task failed after its answer: ${String(error)}`);
      else this.finish(ticket, () => ticket.fail(error));
    }
  }

  private cancel<T>(ticket: Ticket<T>, reason: CancelReason): void {
    if (ticket.answered) return;
    ticket.controller.abort(new Error(`completion ${reason}`));
    this.settle(ticket, { kind: 'cancelled', reason });
  }

  private settle<T>(ticket: Ticket<T>, result: ScheduleResult<T>): void {
    this.finish(ticket, () => ticket.answer(result));
  }

  private finish<T>(ticket: Ticket<T>, deliver: () => void): void {
    if (ticket.answered) return;
    ticket.answered = true;
    if (this.latest.get(ticket.key) === ticket) this.latest.delete(ticket.key);
    deliver();
  }
}
