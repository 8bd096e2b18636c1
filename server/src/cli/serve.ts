/**
 * `reposhapley serve --stdio`: the language server over stdin/stdout. Ends with code 0 when
 * the client vanishes (stdin closes, or the editor process named in `initialize` no longer
 * exists); `exit` after `shutdown` also ends with 0 (LSP).
 */
import { appendFileSync } from 'node:fs';
import { format } from 'node:util';
import { createConnection, ProposedFeatures, StreamMessageWriter } from 'vscode-languageserver/node';
import { ResilientMessageReader } from '../lsp/messageReader.js';
import { watchParentProcess, withoutParentProcessId } from '../lsp/parentWatchdog.js';
import { startLspServer, type EngineFactory } from '../lsp/server.js';
import { disposeSession } from '../lsp/shutdown.js';
import type { ServerState } from '../lsp/state.js';
import type { Logger } from '../util/logger.js';

/** How long disposing the engine may take once the client is gone. */
const DISPOSE_BUDGET_MS = 3_000;

/** Starts the server on stdio and returns its session; the process ends when the client goes. */
export function runServe(createEngine: EngineFactory, logger: Logger): ServerState {
  keepStdoutForProtocol();
  const writer = new StreamMessageWriter(process.stdout);
  const reader = new ResilientMessageReader(process.stdin, { reject: (reply) => void writer.write(reply).catch(() => undefined) });
  reader.onError((error) => logger.warn(`protocol: ${error.message}`));
  // vscode-languageserver's own watchdog on the editor process exits also on EPERM; ours does not.
  const watchEditor = watchFirstEditor((pid) => void endWhenClientGone(state, logger, `editor process ${pid} gone`));
  const connection = createConnection(
    ProposedFeatures.all, withoutParentProcessId(reader, watchEditor), writer,
  );
  const state = startLspServer(connection, createEngine, logger);
  const onClientGone = (why: string) => () => void endWhenClientGone(state, logger, why);
  process.stdin.once('end', onClientGone('stdin ended'));
  process.stdin.once('close', onClientGone('stdin closed'));
  process.stdout.on('error', onClientGone('stdout failed'));
  process.on('unhandledRejection', (reason) => logger.error(`unhandled rejection: ${format(reason)}`));
  logger.info(`serving on stdio (pid ${process.pid})`);
  logMemoryWhenAsked(process.env.REPOSHAPLEY_MEMORY_LOG);
  return state;
}

/**
 * With REPOSHAPLEY_MEMORY_LOG=FILE, appends `process.memoryUsage()` as a JSON line every 5 s:
 * the soak benchmark uses it to tell V8's heap from tree-sitter's and llama.cpp's memory.
 * When node runs with --expose-gc, each line also has `liveHeapUsed`, the heap after a full
 * collection: retained data as opposed to garbage not yet collected (it perturbs what it measures,
 * so use it to find leaks, not to report memory).
 */
function logMemoryWhenAsked(file: string | undefined): void {
  if (!file) return;
  const collect = (globalThis as { gc?: () => void }).gc;
  const sample = () => {
    try {
      const usage = process.memoryUsage();
      const live = collect ? (collect(), { liveHeapUsed: process.memoryUsage().heapUsed }) : {};
      appendFileSync(file, `${JSON.stringify({ time: Date.now(), ...usage, ...live })}\n`);
    } catch {
      // A diagnostic must never take the server down.
    }
  };
  sample();
  setInterval(sample, 5_000).unref();
}

/** Watches the editor process the first `initialize` names; calls `onGone` when it no longer exists. */
function watchFirstEditor(onGone: (pid: number) => void): (pid: number) => void {
  let watching = false;
  return (pid) => {
    if (watching) return;
    watching = true;
    watchParentProcess(pid, () => onGone(pid));
  };
}

let ending = false;

/** The client vanished without `exit`: release the engine within a budget and exit 0. */
async function endWhenClientGone(state: ServerState, logger: Logger, why: string): Promise<void> {
  if (ending) return;
  ending = true;
  logger.info(`${why}: client gone, exiting`);
  const budget = new Promise<void>((resolve) => setTimeout(resolve, DISPOSE_BUDGET_MS).unref());
  await Promise.race([disposeSession(state), budget]);
  process.exit(0);
}

/**
 * stdout is the protocol: a dependency that logs with console.* would corrupt it, so those
 * calls go to stderr for the life of the process.
 */
function keepStdoutForProtocol(): void {
  const toStderr = (...args: unknown[]): void => {
    process.stderr.write(`${format(...args)}\n`);
  };
  for (const method of ['log', 'info', 'debug', 'warn', 'error', 'trace'] as const) console[method] = toStderr;
}
