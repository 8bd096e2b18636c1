/**
 * One language-server session at a time: start, stop, restart, and the one message a user sees
 * when the server cannot start or stops unexpectedly. vscode-languageclient does the protocol;
 * its own notifications are turned off (QuietLanguageClient) so each failure is reported once,
 * here, with its fix. Crashes are not restarted automatically: the message offers a restart,
 * and "RepoShapley: Restart Server" recovers.
 */
import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createInterface } from 'node:readline';
import * as vscode from 'vscode';
import {
  CloseAction, DidChangeConfigurationNotification, ErrorAction, LanguageClient, WorkDoneProgress,
  type LanguageClientOptions, type Middleware, type StreamInfo,
} from 'vscode-languageclient/node';
import {
  CompletionTraceRequest, CursorNotification, PullModelRequest, StatusNotification,
  type CompletionTrace, type CompletionTraceParams, type PullModelParams, type PullModelResult, type StatusParams,
} from '../../shared/messages.js';
import { COMPLETED_EDITOR_IDS } from '../../shared/languages.js';
import { initializationOptions, SECTION, toSettingsPatch, type ReadSetting } from './configuration.js';
import type { WorkDoneValue } from './modelDownload.js';
import { describeExit, locateServer, spawnServer, type ServerExit } from './serverProcess.js';

/** The command the server attaches to completion items with their trace id (see extension.ts). */
export const ACCEPT_COMMAND = 'reposhapley.completionAccepted';

/** What the session tells the rest of the extension. */
export interface SessionEvents {
  starting(): void;
  stopped(reason: string): void;
  status(params: StatusParams): void;
  /** A completion with this trace id was offered. */
  offered(traceId: string): void;
}

/** Logs what the library reports, but never shows it: the session reports each failure once. */
class QuietLanguageClient extends LanguageClient {
  override error(message: string, data?: unknown): void {
    super.error(message, data, false);
  }
}

export class ServerSession {
  private client: LanguageClient | undefined;
  private child: ChildProcess | undefined;
  private lastExit: ServerExit | undefined;
  /** Resolves when the current process has exited (its stdout closes a little earlier). */
  private exited: Promise<void> = Promise.resolve();
  /** The server's last error line on stderr and when: the likeliest cause when it stops soon after. */
  private lastError: { line: string; at: number } | undefined;
  /** One report per start attempt, though a failed start can both close and reject. */
  private reported = false;

  constructor(
    private readonly extensionPath: string,
    private readonly output: vscode.LogOutputChannel,
    private readonly events: SessionEvents,
  ) {}

  /** Starts the server; failures are reported to the user, not thrown. */
  async start(): Promise<void> {
    this.events.starting();
    this.reported = false;
    this.lastExit = undefined;
    this.lastError = undefined;
    const location = locateServer(this.extensionPath, String(read('serverPath') ?? ''));
    if (location.kind === 'missing') return this.fail(location.message, 'no server', ['Open Settings']);
    this.output.info(`starting ${location.main}`);
    // A close or error of a client that is no longer current (stopped, restarted) is no crash.
    const client: LanguageClient = new QuietLanguageClient(
      'reposhapley', 'RepoShapley', () => this.spawn(location.main), this.clientOptions(() => this.client === client),
    );
    client.onNotification(StatusNotification, (params) => this.events.status(params));
    this.client = client;
    try {
      await client.start();
    } catch (error) {
      if (this.client !== client) return; // stopped or restarted meanwhile
      await this.exitedOrTimeout();
      if (this.client !== client) return;
      const why = this.lastExit ? `${describeExit(this.lastExit)}${this.errorDetail()}` : messageOf(error);
      this.fail(`RepoShapley's server did not start (${why}). Its log is in Output › RepoShapley.`, 'start failed', ['Restart', 'Show Log']);
    }
  }

  /** Stops the server (shutdown + exit), killing it if it does not go within the LSP timeout. */
  async stop(): Promise<void> {
    const { client, child } = this;
    this.client = undefined;
    this.child = undefined;
    if (client?.isRunning()) await client.stop(2000).catch((error: unknown) => this.output.warn(`stop: ${messageOf(error)}`));
    if (child && child.exitCode === null && child.signalCode === null) child.kill();
    this.events.stopped('stopped');
  }

  async restart(): Promise<void> {
    await this.stop();
    await this.start();
  }

  /** Pushes the current settings (didChangeConfiguration with the `reposhapley` section). */
  async sendSettings(): Promise<void> {
    if (!this.client?.isRunning()) return;
    await this.client.sendNotification(DidChangeConfigurationNotification.type, { settings: { [SECTION]: toSettingsPatch(read) } });
  }

  /** Tells the server the cursor came to rest (it prefills the prompt there); nothing when no server runs. */
  cursorRested(at: { uri: string; line: number; character: number }): void {
    if (!this.client?.isRunning()) return;
    void this.client.sendNotification(CursorNotification, { textDocument: { uri: at.uri }, position: { line: at.line, character: at.character } })
      .catch((error: unknown) => this.output.debug(`cursor notification: ${messageOf(error)}`));
  }

  /** The trace of a completion (the latest without an id); undefined when no server runs. */
  async trace(traceId: string | undefined): Promise<CompletionTrace | null | undefined> {
    if (!this.client?.isRunning()) return undefined;
    const params: CompletionTraceParams = traceId ? { traceId } : {};
    return this.client.sendRequest(CompletionTraceRequest, params);
  }

  /**
   * Asks the server to download a catalog model (default: its `model` setting), with the
   * server's work-done progress on a token of ours; cancelling `token` cancels the request.
   * Undefined when no server runs; a lost connection is an error value, like the server's own.
   */
  async pullModel(name: string | undefined, onProgress: (value: WorkDoneValue) => void, token: vscode.CancellationToken): Promise<PullModelResult | undefined> {
    const client = this.client;
    if (!client?.isRunning()) return undefined;
    const workDoneToken = randomUUID();
    const progress = client.onProgress(WorkDoneProgress.type, workDoneToken, onProgress);
    const params: PullModelParams = name ? { name, workDoneToken } : { workDoneToken };
    try {
      return await client.sendRequest(PullModelRequest, params, token);
    } catch (error) {
      if (token.isCancellationRequested) return { kind: 'error', code: 'cancelled', message: 'the download was cancelled' };
      return { kind: 'error', code: 'download-failed', message: `the request to the server failed (${messageOf(error)})` };
    } finally {
      progress.dispose();
    }
  }

  /** Starts the process; its stderr (the server's log) goes to the channel at the level it names. */
  private spawn(main: string): Promise<StreamInfo> {
    let markExited = (): void => {};
    this.exited = new Promise((resolve) => { markExited = resolve; });
    const child: ChildProcess = spawnServer(main, (exit) => {
      this.output.info(`server process ended (${describeExit(exit)})`);
      if (this.child !== child) return;
      this.lastExit = exit;
      markExited();
    });
    this.child = child;
    createInterface({ input: child.stderr!, crlfDelay: Infinity }).on('line', (line) => {
      const isError = /^\[error\]|Error\b/.test(line);
      if (isError && this.child === child) this.lastError = { line: line.replace(/^\[error\] /, '').trim(), at: Date.now() };
      logServerLine(this.output, line);
    });
    return Promise.resolve({ reader: child.stdout!, writer: child.stdin! });
  }

  private clientOptions(isCurrent: () => boolean): LanguageClientOptions {
    return {
      // Every language the server knows; one turned off in `languages.<id>` is answered with nothing.
      documentSelector: COMPLETED_EDITOR_IDS.map((language) => ({ scheme: 'file', language })),
      outputChannel: this.output,
      initializationOptions: () => initializationOptions(read, ACCEPT_COMMAND),
      initializationFailedHandler: () => false,
      errorHandler: {
        error: (error, _message, count) => {
          if ((count ?? 0) <= 3) return { action: ErrorAction.Continue, handled: true };
          if (isCurrent()) this.fail(`RepoShapley's connection to its server keeps failing (${error.message}). Its log is in Output › RepoShapley.`, 'connection failed', ['Restart', 'Show Log']);
          return { action: ErrorAction.Shutdown, handled: true };
        },
        closed: async () => {
          if (isCurrent()) await this.crashed(isCurrent);
          return { action: CloseAction.DoNotRestart, handled: true };
        },
      },
      middleware: this.middleware(),
    };
  }

  private middleware(): Middleware {
    return {
      provideInlineCompletionItems: async (document, position, context, token, next) => {
        const result = await next(document, position, context, token);
        const items = Array.isArray(result) ? result : result?.items;
        const traceId: unknown = items?.[0]?.command?.arguments?.[0];
        if (typeof traceId === 'string') this.events.offered(traceId);
        return result;
      },
      workspace: {
        // The server pulls the section at times; answer with what it understands.
        configuration: (params, token, next) =>
          params.items.some((item) => item.section === SECTION) ? params.items.map((item) => (item.section === SECTION ? toSettingsPatch(read) : null)) : next(params, token),
        // extension.ts pushes converted settings itself; the library would send raw ones.
        didChangeConfiguration: async () => {},
      },
    };
  }

  private async crashed(isCurrent: () => boolean): Promise<void> {
    await this.exitedOrTimeout();
    if (!isCurrent()) return;
    const reason = describeExit(this.lastExit);
    this.fail(
      `RepoShapley's server stopped unexpectedly (${reason}${this.errorDetail()}). Its log is in Output › RepoShapley; ` +
        'after fixing what it reports, run "RepoShapley: Restart Server".',
      reason,
      ['Restart', 'Show Log'],
    );
  }

  /** The pipe closes before the exit status is known; wait briefly so messages can say why. */
  private async exitedOrTimeout(): Promise<void> {
    await Promise.race([this.exited, new Promise((resolve) => setTimeout(resolve, 2_000))]);
  }

  /** The last error line, if the server wrote it in the seconds before it stopped. */
  private errorDetail(): string {
    const recent = this.lastError && Date.now() - this.lastError.at < 10_000 ? this.lastError.line : undefined;
    return recent ? `: ${recent.slice(0, 300)}` : '';
  }

  /** The one message for a failed start or a crash, with the actions that fix it. */
  private fail(message: string, reason: string, actions: string[]): void {
    this.events.stopped(reason);
    if (this.reported) return;
    this.reported = true;
    this.output.error(message);
    void vscode.window.showErrorMessage(message, ...actions).then((action) => {
      if (action === 'Restart') void vscode.commands.executeCommand('reposhapley.restartServer');
      else if (action === 'Show Log') this.output.show();
      else if (action === 'Open Settings') void vscode.commands.executeCommand('workbench.action.openSettings', 'reposhapley.serverPath');
    });
  }
}

/** A server log line (`[level] [module] text`) into the channel at its level; others as info. */
function logServerLine(output: vscode.LogOutputChannel, line: string): void {
  const match = /^\[(trace|debug|info|warn|error)\] (.*)$/.exec(line);
  const level = (match?.[1] ?? 'info') as 'trace' | 'debug' | 'info' | 'warn' | 'error';
  output[level](match?.[2] ?? line);
}

/** Reads the current `reposhapley` configuration. */
const read: ReadSetting = (key) => vscode.workspace.getConfiguration(SECTION).get(key);

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
