/**
 * One language server process driven over stdio, as an editor drives it: spawn the built
 * server, `initialize` with the repository as the workspace folder, wait for the indexing pass
 * (`reposhapley/status` ready / no-model, with work-done progress), then document sync,
 * completions, traces and settings pushes, and a clean `shutdown` + `exit`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, type WriteStream } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  CancellationTokenSource, createProtocolConnection, StreamMessageReader, StreamMessageWriter, WorkDoneProgress,
  type ClientCapabilities, type InlineCompletionList, type ProtocolConnection,
} from 'vscode-languageserver-protocol/node';
import { EDITOR_LANGUAGES, languageOfFileName } from '../../../shared/languages.js';
import { CompletionTraceRequest, CursorNotification, StatusNotification, type CompletionTrace, type StatusParams } from '../../../shared/messages.js';
import type { SettingsPatch } from '../../../shared/settings.js';
import { LOG_LEVEL_ENV } from '../../../server/src/cli/logging.js';
import { SERVER_MAIN_JS } from '../repoPaths.js';
import type { Position } from '../tasks/types.js';
import { SERVER_NODE_FLAGS } from '../../../shared/nodeFlags.js';

/** What the bench's client says it can do: inline completion, progress, nothing it does not serve. */
const CAPABILITIES: ClientCapabilities = {
  window: { workDoneProgress: true },
  workspace: { workspaceFolders: true, didChangeConfiguration: { dynamicRegistration: false } },
  textDocument: { synchronization: { dynamicRegistration: false }, inlineCompletion: { dynamicRegistration: false } },
};

/** The command the server attaches to items so each carries its trace id (see lsp/README.md). */
export const TRACE_COMMAND = 'reposhapley.bench.trace';

/** How much of the server's stderr is kept for error messages. */
const STDERR_KEPT = 16_000;

/** How to start a server. */
export interface SessionOptions {
  /** The workspace folder (the repository root). */
  root: string;
  /** Sent as initializationOptions. */
  settings: SettingsPatch;
  /** The server entry point; default the built server. */
  serverScript?: string;
  /** Extra environment for the server process. */
  env?: NodeJS.ProcessEnv;
  /** Append the server's whole log (stderr) to this file, at debug level unless REPOSHAPLEY_LOG says otherwise. */
  logFile?: string;
}

/** An inline completion as the client received it. */
export interface InlineAnswer {
  /** The first item's text, '' for an empty list. */
  text: string;
  traceId?: string;
  latencyMs: number;
}

/** A running server with an initialized LSP session. */
export class ServerSession {
  private readonly connection: ProtocolConnection;
  private readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  private readonly statusWaiters: (() => void)[] = [];
  private stderr = '';
  private hasExited = false;
  /** Every `reposhapley/status` received, in order. */
  readonly statuses: StatusParams[] = [];
  /** Work-done progress kinds received (begin, report, end). */
  readonly progressKinds: string[] = [];
  /** Trace ids already attributed to a request, so a stale "latest trace" is never taken twice. */
  readonly tracesSeen = new Set<string>();

  private constructor(private readonly child: ChildProcess, log?: WriteStream) {
    child.stderr?.setEncoding('utf8');
    child.stderr?.on('data', (chunk: string) => {
      this.stderr = (this.stderr + chunk).slice(-STDERR_KEPT);
      log?.write(chunk);
    });
    child.once('exit', () => log?.end());
    child.stdin?.on('error', () => {}); // The server may be gone; the exit promise says so.
    this.exited = new Promise((resolve) => child.once('exit', (code, signal) => {
      this.hasExited = true;
      this.wakeStatusWaiters();
      resolve({ code, signal });
    }));
    this.connection = createProtocolConnection(new StreamMessageReader(child.stdout!), new StreamMessageWriter(child.stdin!));
    this.listen();
    this.connection.listen();
  }

  /** Spawns the server and initializes it for `options.root`; indexing starts in the server. */
  static async start(options: SessionOptions): Promise<ServerSession> {
    const logLevel = options.logFile && !process.env[LOG_LEVEL_ENV] ? { [LOG_LEVEL_ENV]: 'debug' } : {};
    // Started as editors start it (client-vscode/src/serverProcess.ts), with the same V8 flags.
    const child = spawn(process.execPath, [...SERVER_NODE_FLAGS, options.serverScript ?? SERVER_MAIN_JS, 'serve', '--stdio'], {
      stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, ...logLevel, ...options.env },
    });
    const log = options.logFile ? createWriteStream(options.logFile, { flags: 'a' }) : undefined;
    log?.write(`\n==== ${new Date().toISOString()} server for ${options.root} ====\n`);
    const session = new ServerSession(child, log);
    try {
      await session.initialize(options.root, options.settings);
    } catch (error) {
      await session.dispose(1_000);
      throw error;
    }
    return session;
  }

  private listen(): void {
    const { connection } = this;
    connection.onNotification(StatusNotification, (params) => {
      this.statuses.push(params);
      this.wakeStatusWaiters();
    });
    for (const method of ['window/showMessage', 'window/logMessage', 'telemetry/event']) connection.onNotification(method, () => {});
    connection.onRequest('client/registerCapability', () => null);
    connection.onRequest('window/workDoneProgress/create', (params: { token: string | number }) => {
      connection.onProgress(WorkDoneProgress.type, params.token, (value) => { this.progressKinds.push(value.kind); });
      return null;
    });
  }

  private async initialize(root: string, settings: SettingsPatch): Promise<void> {
    const uri = pathToFileURL(root).href;
    await this.within('initialize', this.connection.sendRequest('initialize', {
      processId: process.pid, rootUri: uri, capabilities: CAPABILITIES,
      initializationOptions: { ...settings, completionCommand: TRACE_COMMAND },
      workspaceFolders: [{ uri, name: path.basename(root) }],
    }), 60_000);
    await this.connection.sendNotification('initialized', {});
  }

  /**
   * Resolves with the status that ends the indexing pass: `ready`, or `no-model` (indexing is
   * done but no model is usable). Throws on `error`, on exit, or after `timeoutMs`.
   */
  async waitUntilIndexed(timeoutMs = 300_000): Promise<StatusParams> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const done = this.statuses.find((s) => (s.state === 'ready' || s.state === 'no-model') && s.indexedFiles !== undefined);
      if (done) return done;
      const failed = this.statuses.find((s) => s.state === 'error');
      if (failed) throw new Error(`the server failed to index: ${failed.message}`);
      if (this.hasExited) throw this.failure('the server exited while indexing');
      if (Date.now() > deadline) throw this.failure('timed out waiting for indexing');
      await new Promise<void>((resolve) => {
        this.statusWaiters.push(resolve);
        setTimeout(resolve, 500);
      });
    }
  }

  /** Pushes settings (workspace/didChangeConfiguration); the server applies them before the next message. */
  async configure(patch: SettingsPatch): Promise<void> {
    await this.connection.sendNotification('workspace/didChangeConfiguration', { settings: { reposhapley: patch } });
  }

  /** textDocument/didOpen of a buffer, with the `languageId` an editor gives its file name (Python's when none). */
  async open(uri: string, text: string, version = 1): Promise<void> {
    await this.connection.sendNotification('textDocument/didOpen', { textDocument: { uri, languageId: editorIdOf(uri), version, text } });
  }

  /** textDocument/didChange inserting `text` at `at` (incremental sync). */
  async insert(uri: string, version: number, at: Position, text: string): Promise<void> {
    await this.connection.sendNotification('textDocument/didChange', {
      textDocument: { uri, version }, contentChanges: [{ range: { start: at, end: at }, text }],
    });
  }

  /** reposhapley/cursor: the cursor came to rest at `at` (the server may prefill there). */
  async cursorRested(uri: string, at: Position): Promise<void> {
    await this.connection.sendNotification(CursorNotification, { textDocument: { uri }, position: at });
  }

  /** textDocument/didClose. */
  async close(uri: string): Promise<void> {
    await this.connection.sendNotification('textDocument/didClose', { textDocument: { uri } });
  }

  /**
   * textDocument/inlineCompletion at `position`, with the `reposhapley.mode` hint. Latency is
   * client-side: from sending the request to receiving the answer. `cancel` sends $/cancelRequest.
   */
  requestInline(
    uri: string, position: Position, mode: 'line' | 'block', triggerKind: 1 | 2, timeoutMs: number,
  ): { answer: Promise<InlineAnswer>; cancel: () => void } {
    const source = new CancellationTokenSource();
    const params = { textDocument: { uri }, position, context: { triggerKind }, reposhapley: { mode } };
    const started = performance.now();
    const request = this.connection.sendRequest<InlineCompletionList | null>('textDocument/inlineCompletion', params, source.token)
      .then((list) => toAnswer(list, performance.now() - started));
    return { answer: this.within('inline completion', request, timeoutMs, () => source.cancel()), cancel: () => source.cancel() };
  }

  /** reposhapley/completionTrace by id, or the latest completion's trace without one. */
  async trace(traceId?: string): Promise<CompletionTrace | null> {
    const params = traceId === undefined ? {} : { traceId };
    return this.within('completion trace', this.connection.sendRequest(CompletionTraceRequest, params), 30_000);
  }

  /** Whether the server process is still running. */
  get alive(): boolean {
    return !this.hasExited;
  }

  /** The last lines the server wrote to stderr (its log). */
  stderrTail(chars = 4_000): string {
    return this.stderr.slice(-chars);
  }

  /** `shutdown` + `exit`; kills the process if it does not end in time. Never throws. */
  async dispose(timeoutMs = 10_000): Promise<void> {
    if (!this.hasExited) {
      try {
        await this.within('shutdown', this.connection.sendRequest('shutdown'), timeoutMs);
        await this.connection.sendNotification('exit');
        await this.within('exit', this.exited, timeoutMs);
      } catch {
        this.child.kill('SIGKILL');
        await this.exited;
      }
    }
    this.connection.dispose();
  }

  /** `promise`, or a rejection naming `what` (with the server's log) on exit or timeout. */
  private async within<T>(what: string, promise: Promise<T>, timeoutMs: number, onTimeout?: () => void): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        onTimeout?.();
        reject(this.failure(`timed out after ${timeoutMs} ms waiting for ${what}`));
      }, timeoutMs);
    });
    const exit = promise === (this.exited as Promise<unknown>)
      ? timeout
      : this.exited.then((e) => Promise.reject(this.failure(`the server exited (code ${e.code}, signal ${e.signal}) during ${what}`)));
    try {
      return await Promise.race([promise, timeout, exit]);
    } finally {
      clearTimeout(timer);
    }
  }

  private failure(message: string): Error {
    return new Error(`${message}; server log:\n${this.stderrTail()}`);
  }

  private wakeStatusWaiters(): void {
    for (const wake of this.statusWaiters.splice(0)) wake();
  }
}

function toAnswer(list: InlineCompletionList | null, latencyMs: number): InlineAnswer {
  const item = list?.items?.[0];
  const traceId = item?.command?.arguments?.[0];
  const text = typeof item?.insertText === 'string' ? item.insertText : '';
  return typeof traceId === 'string' ? { text, traceId, latencyMs } : { text, latencyMs };
}

/** VS Code's `languageId` for a file name: `go` for `.go`, `javascript` for `.mjs`. */
function editorIdOf(uri: string): string {
  const id = languageOfFileName(uri);
  return EDITOR_LANGUAGES.find((language) => language.id === id)?.editorIds[0] ?? 'python';
}
