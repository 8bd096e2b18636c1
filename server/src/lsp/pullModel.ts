/**
 * `reposhapley/pullModel`: downloads a catalog model into the server's model cache, reporting on
 * the client's work-done token (`$/progress` begin, reports, end) and aborting when the request
 * is cancelled. The engine loads the model when the pull ends, so the next completion uses it.
 */
import type { CancellationToken, ProgressToken, WorkDoneProgressReporter } from 'vscode-languageserver/node';
import type { PullModelParams, PullModelResult } from '../../../shared/messages.js';
import type { ModelPullProgress } from '../completion/engine.js';
import { toAbortSignal } from './converters.js';
import type { ServerState } from './state.js';

/** Minimum milliseconds between two progress reports: a few per second. */
export const PULL_PROGRESS_INTERVAL_MS = 250;

/** The answer when the handler fails (a bug): a value the client shows, never a hang. */
export function pullModelFailed(): PullModelResult {
  return { kind: 'error', code: 'download-failed', message: 'the server failed while downloading the model; see its log' };
}

/** Handles `reposhapley/pullModel`. */
export function onPullModel(state: ServerState) {
  return async (params: PullModelParams | undefined | null, token: CancellationToken): Promise<PullModelResult> => {
    const engine = state.engine;
    if (!engine) return { kind: 'error', code: 'not-ready', message: 'the server is still starting; try again in a moment' };
    const name = typeof params?.name === 'string' && params.name.trim() ? params.name.trim() : undefined;
    const progress = state.connection.window.attachWorkDoneProgress(progressToken(params?.workDoneToken));
    const cancellation = toAbortSignal(token);
    progress.begin(`Downloading ${engine.modelToPull(name)}`, 0, 'starting', true);
    try {
      return await engine.pullModel(name, throttled(progress), cancellation.signal);
    } finally {
      cancellation.dispose();
      progress.done();
    }
  };
}

function progressToken(value: unknown): ProgressToken | undefined {
  return typeof value === 'string' || (typeof value === 'number' && Number.isInteger(value)) ? value : undefined;
}

/** Reports at most every {@link PULL_PROGRESS_INTERVAL_MS}; `end` follows the last one anyway. */
export function throttled(
  progress: Pick<WorkDoneProgressReporter, 'report'>, now: () => number = Date.now,
): (update: ModelPullProgress) => void {
  let last = -Infinity;
  return (update) => {
    const time = now();
    if (time - last < PULL_PROGRESS_INTERVAL_MS) return;
    last = time;
    progress.report(update.percentage, update.message);
  };
}
