/**
 * Runs an indexing pass over the workspace roots with work-done progress and status
 * notifications. A new pass aborts the previous one (stale work never blocks fresh work).
 */
import type { WorkDoneProgressServerReporter } from 'vscode-languageserver/node';
import type { IndexProgress } from '../completion/engine.js';
import { boundMessage } from '../indexing/indexResults.js';
import type { ServerState } from './state.js';

/** Minimum milliseconds between two progress reports (a big workspace has thousands of files). */
const PROGRESS_INTERVAL_MS = 200;
/** How long the client may take to accept a work-done progress token. */
const PROGRESS_CREATE_TIMEOUT_MS = 2_000;

/** Starts indexing `state.roots`; resolves when the pass ends (never rejects). */
export async function runIndexing(state: ServerState): Promise<void> {
  const engine = state.engine;
  if (!engine) return;
  state.indexing?.abort();
  const controller = new AbortController();
  state.indexing = controller;
  const progress = await createProgress(state);
  progress.begin('RepoShapley: indexing', 0, `${state.roots.length} folder(s)`, false);
  state.status.indexing(0, 'indexing workspace');
  try {
    const stats = await engine.indexWorkspace(state.roots, throttledReporter(state, progress), controller.signal);
    if (controller.signal.aborted) return;
    const message = `indexed ${stats.files} files in ${Math.round(stats.wallMs)} ms${stats.bound ? `; ${boundMessage(stats.bound)}` : ''}`;
    if (stats.bound) state.logger.warn(message);
    else state.logger.info(message);
    state.status.indexed(stats.files, message);
  } catch (error) {
    if (controller.signal.aborted) return;
    const message = `indexing failed: ${error instanceof Error ? error.message : String(error)}`;
    state.logger.error(message);
    state.status.failed(message);
  } finally {
    progress.done();
    if (state.indexing === controller) state.indexing = undefined;
  }
}

type Progress = Pick<WorkDoneProgressServerReporter, 'begin' | 'report' | 'done'>;

/**
 * A work-done progress when the client supports it; a no-op reporter otherwise, or when the
 * client does not answer the create request in time (indexing never waits on the client).
 */
async function createProgress(state: ServerState): Promise<Progress> {
  const noop: Progress = { begin() {}, report() {}, done() {} };
  if (!state.capabilities.window?.workDoneProgress) return noop;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<Progress>((resolve) => { timer = setTimeout(() => resolve(noop), PROGRESS_CREATE_TIMEOUT_MS); });
  try {
    return await Promise.race([state.connection.window.createWorkDoneProgress(), late]);
  } catch (error) {
    state.logger.debug(`work-done progress refused by the client: ${String(error)}`);
    return noop;
  } finally {
    clearTimeout(timer);
  }
}

/** Progress callback reporting at most every {@link PROGRESS_INTERVAL_MS}, plus the last file. */
function throttledReporter(
  state: ServerState, progress: Pick<WorkDoneProgressServerReporter, 'report'>,
): (p: IndexProgress) => void {
  let lastReport = 0;
  return (p) => {
    const now = Date.now();
    const isLast = p.filesTotal > 0 && p.filesDone >= p.filesTotal;
    if (!isLast && now - lastReport < PROGRESS_INTERVAL_MS) return;
    lastReport = now;
    const percentage = p.filesTotal > 0 ? Math.min(100, Math.round((100 * p.filesDone) / p.filesTotal)) : 0;
    progress.report(percentage, `${p.filesDone}/${p.filesTotal} files`);
    state.status.indexing(p.filesDone, `indexing ${p.filesDone}/${p.filesTotal} files`);
  };
}
