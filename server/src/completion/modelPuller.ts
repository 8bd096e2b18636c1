/**
 * One model pull at a time per engine (two would write the same staging files). A request for
 * the model being pulled joins the running pull and gets its progress from then on; a request
 * for another model is answered `busy`. Each caller's AbortSignal ends only its own wait; the
 * pull itself is aborted once no caller waits for it, and a pull being aborted finishes its
 * clean-up before the next one starts. The pull's progress never reaches stdout: it goes to the
 * callers' listeners, its notes to the log.
 */
import type { PullModelResult } from '../../../shared/messages.js';
import { failure, type PullOutcome } from '../modelStore/outcome.js';
import { pullCatalogModel, type PullOptions } from '../modelStore/pull.js';
import type { Logger } from '../util/logger.js';
import type { ModelPullProgress } from './engine.js';
import { pullProgressReporter } from './pullProgress.js';

/** Pulls a catalog model (pullCatalogModel; tests pass a fake). */
export type PullFunction = (name: string, options: PullOptions) => Promise<PullOutcome>;

/** A pull's outcome, or `busy` while another model is being pulled. */
export type PullerOutcome = PullOutcome | Extract<PullModelResult, { kind: 'error' }>;

type ProgressListener = (progress: ModelPullProgress) => void;

interface RunningPull {
  name: string;
  cacheDir: string | undefined;
  controller: AbortController;
  /** One per waiting caller: the pull is aborted when the last one leaves. */
  listeners: Set<ProgressListener>;
  /** The latest progress, for a caller that joins. */
  last?: ModelPullProgress;
  outcome: Promise<PullOutcome>;
}

export class ModelPuller {
  private running?: RunningPull;

  constructor(private readonly logger: Logger, private readonly pull: PullFunction = pullCatalogModel) {}

  /** Pulls `name` into `cacheDir` (default: the model store's), or joins that pull if it runs. */
  async pullModel(name: string, cacheDir: string | undefined, onProgress: ProgressListener, signal: AbortSignal): Promise<PullerOutcome> {
    for (let run = this.running; run?.controller.signal.aborted; run = this.running) await run.outcome;
    if (signal.aborted) return failure('cancelled', 'the download was cancelled');
    const running = this.running;
    if (running && (running.name !== name || running.cacheDir !== cacheDir)) {
      return { kind: 'error', code: 'busy', message: `${running.name} is being downloaded; try again when it is done` };
    }
    return this.wait(running ?? this.start(name, cacheDir), onProgress, signal);
  }

  /** Aborts the running pull (the server is going away; pip must not outlive it). */
  dispose(): void {
    this.running?.controller.abort(new Error('the server is shutting down'));
  }

  private start(name: string, cacheDir: string | undefined): RunningPull {
    const controller = new AbortController();
    const listeners = new Set<ProgressListener>();
    const progress = pullProgressReporter((update) => {
      run.last = update;
      for (const listener of listeners) listener(update);
    });
    const notes = { ...progress, note: (line: string) => { this.logger.info(`pull ${name}: ${line}`); progress.note(line); } };
    this.logger.info(`pulling ${name}${cacheDir ? ` into ${cacheDir}` : ''}`);
    const run: RunningPull = {
      name, cacheDir, controller, listeners,
      // Started in a microtask: a pull that throws at once, or reports at once, finds `run` set.
      outcome: Promise.resolve()
        .then(() => this.pull(name, { cacheDir, progress: notes, signal: controller.signal }))
        .catch((error: unknown) => failure('download-failed', `pulling ${name} failed: ${error instanceof Error ? error.message : String(error)}`))
        .then((outcome) => this.finished(run, outcome)),
    };
    this.running = run;
    return run;
  }

  private finished(run: RunningPull, outcome: PullOutcome): PullOutcome {
    if (this.running === run) this.running = undefined;
    this.logger.info(`pull ${run.name}: ${outcome.kind === 'ok' ? `${outcome.path} (from ${outcome.source})` : `${outcome.code}: ${outcome.message}`}`);
    return outcome;
  }

  /** Waits for `run` until it ends or `signal` aborts; the last caller to leave aborts the pull. */
  private wait(run: RunningPull, onProgress: ProgressListener, signal: AbortSignal): Promise<PullerOutcome> {
    const listener: ProgressListener = (update) => onProgress(update); // one entry per caller, even for the same function
    run.listeners.add(listener);
    if (run.last) listener(run.last);
    return new Promise((resolve) => {
      const leave = (): void => {
        run.listeners.delete(listener);
        signal.removeEventListener('abort', onAbort);
      };
      const onAbort = (): void => {
        leave();
        if (run.listeners.size === 0) run.controller.abort(new Error('no one waits for the download any more'));
        resolve(failure('cancelled', 'the download was cancelled'));
      };
      signal.addEventListener('abort', onAbort, { once: true });
      void run.outcome.then((outcome) => {
        leave();
        resolve(outcome);
      });
    });
  }
}
