/**
 * A minimal LSP client for tests: spawns a server as a child process speaking JSON-RPC over
 * stdio (as editors do), records what the server sends and answers its requests.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  CancellationTokenSource, createProtocolConnection, StreamMessageReader, StreamMessageWriter, WorkDoneProgress,
  type ClientCapabilities, type InitializeResult, type ProtocolConnection, type WorkDoneProgressBegin,
  type WorkDoneProgressEnd, type WorkDoneProgressReport,
} from 'vscode-languageserver-protocol/node';
import { REPO_ROOT, SERVER_MAIN_JS } from '../../bench/src/repoPaths.js';

export { REPO_ROOT };
/** The built server entry point. */
export const MAIN_JS = SERVER_MAIN_JS;
/** The built fake-engine server (test/lsp/fakeServer.ts). */
export const FAKE_SERVER_JS = path.join(REPO_ROOT, 'dist', 'test', 'lsp', 'fakeServer.js');

/** A notification the server sent. */
export interface ReceivedNotification {
  method: string;
  params: unknown;
}

/** Capabilities of a full-featured editor (VS Code-like). */
export const FULL_CAPABILITIES: ClientCapabilities = {
  window: { workDoneProgress: true },
  workspace: {
    configuration: true,
    workspaceFolders: true,
    didChangeWatchedFiles: { dynamicRegistration: true },
    didChangeConfiguration: { dynamicRegistration: true },
  },
  textDocument: {
    synchronization: { dynamicRegistration: false },
    inlineCompletion: { dynamicRegistration: false },
    completion: { completionItem: { snippetSupport: false } },
  },
};

/** A running server and the client end of its connection. */
export class LspTestClient {
  readonly notifications: ReceivedNotification[] = [];
  readonly progress: (WorkDoneProgressBegin | WorkDoneProgressReport | WorkDoneProgressEnd)[] = [];
  readonly registrations: unknown[] = [];
  readonly connection: ProtocolConnection;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** What `workspace/configuration` answers for the `reposhapley` section. */
  configuration: unknown = null;
  stderr = '';
  private readonly waiters: (() => void)[] = [];

  constructor(readonly child: ChildProcess) {
    child.stderr?.setEncoding('utf8');
    child.stderr?.on('data', (chunk: string) => { this.stderr += chunk; });
    child.stdin?.on('error', () => {}); // the server may exit first; the tests look at exit codes
    this.exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
    this.connection = createProtocolConnection(new StreamMessageReader(child.stdout!), new StreamMessageWriter(child.stdin!));
    this.answerServerRequests();
    this.connection.listen();
  }

  private answerServerRequests(): void {
    const { connection } = this;
    for (const method of ['reposhapley/status', 'window/showMessage', 'window/logMessage', 'telemetry/event']) {
      connection.onNotification(method, (params: unknown) => this.record({ method, params }));
    }
    connection.onRequest('client/registerCapability', (params: unknown) => { this.registrations.push(params); return null; });
    connection.onRequest('window/workDoneProgress/create', (params: { token: string | number }) => {
      connection.onProgress(WorkDoneProgress.type, params.token, (value) => { this.progress.push(value); this.wake(); });
      return null;
    });
    connection.onRequest('workspace/configuration', (params: { items: unknown[] }) => params.items.map(() => this.configuration));
  }

  private record(notification: ReceivedNotification): void {
    this.notifications.push(notification);
    this.wake();
  }

  private wake(): void {
    for (const waiter of this.waiters.splice(0)) waiter();
  }

  /** Notifications of one method, in arrival order. */
  received(method: string): unknown[] {
    return this.notifications.filter((n) => n.method === method).map((n) => n.params);
  }

  /** Resolves when `predicate` holds (re-checked on every message); rejects after `timeoutMs`. */
  async waitFor(what: string, predicate: () => boolean, timeoutMs = 60_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!predicate()) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; stderr:\n${this.stderr.slice(-4000)}`);
      await new Promise<void>((resolve) => {
        this.waiters.push(resolve);
        setTimeout(resolve, 200);
      });
    }
  }

  /**
   * `promise`, or a rejection naming `what` with the server's recent stderr when the server exits
   * first or `timeoutMs` passes (a pending request never settles once the server is gone).
   */
  async within<T>(what: string, promise: Promise<T>, timeoutMs = 30_000): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const fail = (why: string) => new Error(`${why} while waiting for ${what}; server stderr:\n${this.stderr.slice(-4000)}`);
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(fail('timed out')), timeoutMs);
    });
    const exitedFirst = promise === (this.exited as Promise<unknown>)
      ? timeout
      : this.exited.then((exit) => Promise.reject(fail(`server exited (code ${exit.code}, signal ${exit.signal})`)));
    try {
      return await Promise.race([promise, timeout, exitedFirst]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** `initialize` + `initialized`. */
  async initialize(workspace: string, capabilities: ClientCapabilities = FULL_CAPABILITIES, initializationOptions?: unknown): Promise<InitializeResult> {
    const uri = pathToFileURL(workspace).href;
    const result = await this.within('initialize', this.connection.sendRequest<InitializeResult>('initialize', {
      processId: process.pid, rootUri: uri, capabilities, initializationOptions,
      workspaceFolders: [{ uri, name: path.basename(workspace) }],
    }));
    await this.connection.sendNotification('initialized', {});
    return result;
  }

  /** Writes bytes straight to the server's stdin (malformed frames). */
  writeRaw(data: string): void {
    this.child.stdin!.write(data);
  }

  /** The exit code, failing with the server's stderr if it does not exit in time. */
  async exitCode(): Promise<number | null> {
    return (await this.within('server exit', this.exited)).code;
  }

  /** Kills the server if it is still running. */
  async dispose(): Promise<void> {
    this.connection.dispose();
    if (this.child.exitCode === null && this.child.signalCode === null) {
      this.child.kill('SIGKILL');
      await this.exited;
    }
  }
}

/** Spawns `node script ...args` with stdio pipes. */
export function startServer(script: string, args: string[] = [], env: NodeJS.ProcessEnv = {}): LspTestClient {
  const child = spawn(process.execPath, [script, ...args], {
    cwd: REPO_ROOT, stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, ...env },
  });
  return new LspTestClient(child);
}

/** A `Content-Length` framed message. */
export function frame(body: string): string {
  return `Content-Length: ${Buffer.byteLength(body, 'utf8')}\r\n\r\n${body}`;
}

/** A position in a document. */
export interface Cursor {
  uri: string;
  line: number;
  character: number;
}

/** The result of {@link completionStorm}: every answer, in request order. */
export interface StormResult {
  answers: unknown[];
}

/**
 * Sends `count` inline completion requests at `cursor` as fast as possible: every even one and
 * the last are cancelled right after they are sent, the other odd ones are superseded by the
 * next. Resolves when the server has answered every one (a hang fails the test by its timeout).
 */
export async function completionStorm(client: LspTestClient, cursor: Cursor, count: number): Promise<StormResult> {
  const requests: Promise<unknown>[] = [];
  for (let i = 0; i < count; i++) {
    const source = new CancellationTokenSource();
    requests.push(client.connection.sendRequest('textDocument/inlineCompletion', inlineParams(cursor, 2), source.token)
      .catch((error: unknown) => ({ error: String(error) })));
    if (i % 2 === 0 || i === count - 1) source.cancel();
  }
  return { answers: await Promise.all(requests) };
}

/** Params of textDocument/inlineCompletion; trigger kind 1 = Invoked, 2 = Automatic. */
export function inlineParams(cursor: Cursor, triggerKind: 1 | 2 = 1) {
  return {
    textDocument: { uri: cursor.uri },
    position: { line: cursor.line, character: cursor.character },
    context: { triggerKind },
  };
}
