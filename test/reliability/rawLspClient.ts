/**
 * A byte-level LSP client for reliability runs (fuzz, faults, soak). Unlike test/lsp's
 * LspTestClient (vscode-jsonrpc on the client side), it writes any bytes the caller wants, sees
 * every response by id (also for requests it framed itself), times each request and reads the
 * server's resident memory from /proc. It answers the server's own requests the way an editor does.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { FULL_CAPABILITIES, MAIN_JS, REPO_ROOT } from '../lsp/lspTestClient.js';
import { SERVER_NODE_FLAGS } from '../../shared/nodeFlags.js';
import { residentKiB } from '../../server/src/util/processMemory.js';

export { MAIN_JS, REPO_ROOT };

/** A JSON-RPC id as the client spells it. */
export type RequestId = number | string;

/** What the server answered to one request. */
export interface Answer {
  id: RequestId;
  result?: unknown;
  error?: { code: number; message: string };
  /** Milliseconds from writing the request to reading its response. */
  latencyMs: number;
}

/** How the server process ended. */
export interface ExitStatus {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** Options of {@link RawLspClient.spawn}. */
export interface SpawnOptions {
  /** Extra arguments for node before the script (e.g. --max-old-space-size). */
  nodeArgs?: string[];
  env?: NodeJS.ProcessEnv;
  /** Wrap the command (e.g. ['strace', '-f', ...]); the server is then a child of the wrapper. */
  wrapper?: string[];
  /** Bytes of stderr kept (the tail); default 256 KiB. */
  stderrTailBytes?: number;
}

interface Pending {
  resolve: (answer: Answer) => void;
  sentAt: number;
}

const HEADER_END = Buffer.from('\r\n\r\n');

/** A spawned server and the client end of its stdio. */
export class RawLspClient {
  /** Every response to a request this client sent (by id), in arrival order. */
  readonly answers = new Map<RequestId, Answer>();
  /** Notifications the server sent, by method (counts) and the last few of each. */
  readonly notifications = new Map<string, unknown[]>();
  readonly exited: Promise<ExitStatus>;
  /** Error responses with a null id: the server's answers to requests it could not identify. */
  readonly nullIdErrors: { code: number; message: string }[] = [];
  /** What `workspace/configuration` answers for every item. */
  configuration: unknown = null;
  private stderrTail = '';
  private stderrPartial = '';
  private readonly stderrListeners: ((line: string) => void)[] = [];
  private stdoutBuffer: Buffer = Buffer.alloc(0);
  private readonly pending = new Map<RequestId, Pending>();
  private nextId = 1;
  private exitStatus?: ExitStatus;

  private constructor(readonly child: ChildProcess, private readonly stderrTailBytes: number) {
    child.stderr!.setEncoding('utf8');
    child.stderr!.on('data', (chunk: string) => {
      this.stderrTail = (this.stderrTail + chunk).slice(-this.stderrTailBytes);
      if (this.stderrListeners.length === 0) return;
      const lines = (this.stderrPartial + chunk).split('\n');
      this.stderrPartial = lines.pop()!;
      for (const line of lines) for (const listener of this.stderrListeners) listener(line);
    });
    child.stdin!.on('error', () => {}); // the server may be gone; callers look at `exited`
    child.stdout!.on('data', (chunk: Buffer) => this.onStdout(chunk));
    this.exited = new Promise((resolve) => child.once('exit', (code, signal) => {
      this.exitStatus = { code, signal };
      resolve(this.exitStatus);
    }));
  }

  /** Starts `node [nodeArgs] script args` with piped stdio. */
  static spawn(script: string, args: string[], options: SpawnOptions = {}): RawLspClient {
    const command = [...(options.wrapper ?? []), process.execPath, ...(options.nodeArgs ?? []), script, ...args];
    const child = spawn(command[0]!, command.slice(1), {
      cwd: REPO_ROOT, stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, ...options.env },
    });
    return new RawLspClient(child, options.stderrTailBytes ?? 256 * 1024);
  }

  /** The built server (`main.js serve --stdio`), without a model from the environment unless given. */
  static server(options: SpawnOptions = {}): RawLspClient {
    return RawLspClient.spawn(MAIN_JS, ['serve', '--stdio'], {
      nodeArgs: [...SERVER_NODE_FLAGS], ...options, env: { REPOSHAPLEY_MODEL: '', ...options.env },
    });
  }

  get pid(): number {
    return this.child.pid!;
  }

  get alive(): boolean {
    return this.exitStatus === undefined;
  }

  get stderr(): string {
    return this.stderrTail;
  }

  /** Calls `listener` with every complete stderr line from now on. */
  onStderrLine(listener: (line: string) => void): void {
    this.stderrListeners.push(listener);
  }

  /** Requests sent and not answered yet. */
  get pendingCount(): number {
    return this.pending.size;
  }

  /** Sends a request and resolves with its answer (never rejects; see `within` for bounds). */
  request(method: string, params?: unknown): { id: string; answer: Promise<Answer> } {
    const id = `c${this.nextId++}`; // strings, so no fuzzed numeric id can collide with them
    return { id, answer: this.send({ jsonrpc: '2.0', id, method, params }, id) };
  }

  /** `$/cancelRequest` for a request this client sent. */
  cancel(id: RequestId): void {
    this.notify('$/cancelRequest', { id });
  }

  notify(method: string, params?: unknown): void {
    this.write(frame(JSON.stringify({ jsonrpc: '2.0', method, params })));
  }

  /**
   * Registers `id` as a request the caller framed itself (e.g. inside a fuzz batch), so its answer
   * is recorded with a latency measured from now.
   */
  expect(id: RequestId): Promise<Answer> {
    return new Promise((resolve) => {
      this.pending.set(id, { resolve, sentAt: performance.now() });
    });
  }

  /** Writes bytes as they are. Resolves when the pipe has taken them (back-pressure). */
  write(data: string | Buffer): Promise<void> {
    return new Promise((resolve) => {
      if (!this.alive || this.child.stdin!.destroyed) {
        resolve();
        return;
      }
      if (this.child.stdin!.write(data)) resolve();
      else this.child.stdin!.once('drain', () => resolve());
    });
  }

  /**
   * `initialize` + `initialized` for workspace folders (one, several or none). `processId` is this
   * process unless given: the server exits when no process has that id any more (a process of
   * another user, EPERM for the server, counts as alive).
   */
  async initialize(
    workspace: string | readonly string[] | undefined, initializationOptions?: unknown, timeoutMs = 60_000, processId: number | null = process.pid,
  ): Promise<Answer> {
    const roots = workspace === undefined ? [] : typeof workspace === 'string' ? [workspace] : workspace;
    const folders = roots.map((root) => ({ uri: pathToFileURL(root).href, name: path.basename(root) }));
    const { answer } = this.request('initialize', {
      processId, rootUri: folders[0]?.uri ?? null, capabilities: FULL_CAPABILITIES, initializationOptions,
      workspaceFolders: folders.length > 0 ? folders : null,
    });
    const result = await this.within('initialize', answer, timeoutMs);
    this.notify('initialized', {});
    return result;
  }

  /** Resolves when the server reports `ready` (or `no-model`) after indexing. */
  async waitIndexed(timeoutMs = 120_000): Promise<void> {
    await this.waitFor('indexing to finish', () => this.statusStates().some((s) => s === 'ready' || s === 'no-model' || s === 'error'), timeoutMs);
  }

  /** States of every `reposhapley/status` notification so far. */
  statusStates(): string[] {
    return (this.notifications.get('reposhapley/status') ?? []).map((s) => (s as { state: string }).state);
  }

  /** Polls `predicate` every 20 ms; rejects with the stderr tail after `timeoutMs` or when the server exits. */
  async waitFor(what: string, predicate: () => boolean, timeoutMs = 30_000): Promise<void> {
    const deadline = performance.now() + timeoutMs;
    while (!predicate()) {
      if (!this.alive) throw this.failure(`server exited (${JSON.stringify(this.exitStatus)})`, what);
      if (performance.now() > deadline) throw this.failure('timed out', what);
      await sleep(20);
    }
  }

  /** `promise`, or a rejection naming `what` (with the stderr tail) on timeout or server exit. */
  async within<T>(what: string, promise: Promise<T>, timeoutMs = 30_000): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(this.failure('timed out', what)), timeoutMs);
    });
    const died = this.exited.then((status) => Promise.reject(this.failure(`server exited (${JSON.stringify(status)})`, what)));
    died.catch(() => {});
    try {
      return await Promise.race([promise, timeout, died]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Resident memory of the server in KiB (VmRSS from /proc/PID/status); undefined once it exited. */
  rssKiB(pid = this.pid): number | undefined {
    return residentKiB(pid);
  }

  /** The processes the server started (its model host), from /proc; empty once it exited. */
  childPids(): number[] {
    try {
      return readFileSync(`/proc/${this.pid}/task/${this.pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
    } catch {
      return [];
    }
  }

  /** Ends stdin (the client vanishes) and waits for the exit. */
  async closeStdin(timeoutMs = 15_000): Promise<ExitStatus> {
    this.child.stdin!.end();
    return this.within('exit after stdin closed', this.exited, timeoutMs);
  }

  /** SIGKILLs the server if it still runs. */
  async dispose(): Promise<void> {
    if (this.alive) {
      this.child.kill('SIGKILL');
      await this.exited;
    }
  }

  private send(message: { id: RequestId } & Record<string, unknown>, id: RequestId): Promise<Answer> {
    const answer = this.expect(id);
    void this.write(frame(JSON.stringify(message)));
    return answer;
  }

  private failure(why: string, what: string): Error {
    return new Error(`${why} while waiting for ${what}; server stderr (tail):\n${this.stderrTail.slice(-4000)}`);
  }

  private onStdout(chunk: Buffer): void {
    this.stdoutBuffer = this.stdoutBuffer.length === 0 ? chunk : Buffer.concat([this.stdoutBuffer, chunk]);
    for (;;) {
      const headerEnd = this.stdoutBuffer.indexOf(HEADER_END);
      if (headerEnd < 0) return;
      const match = /content-length:\s*(\d+)/i.exec(this.stdoutBuffer.toString('ascii', 0, headerEnd));
      if (!match) throw new Error(`the server wrote a frame without Content-Length: ${this.stdoutBuffer.toString('latin1', 0, 200)}`);
      const start = headerEnd + HEADER_END.length;
      const end = start + Number(match[1]);
      if (this.stdoutBuffer.length < end) return;
      const body = this.stdoutBuffer.toString('utf8', start, end);
      this.stdoutBuffer = this.stdoutBuffer.subarray(end);
      this.onMessage(JSON.parse(body) as ServerMessage);
    }
  }

  private onMessage(message: ServerMessage): void {
    if (message.method !== undefined && message.id !== undefined && message.id !== null) {
      this.answerServerRequest(message.id, message.method, message.params);
    } else if (message.method !== undefined) {
      const list = this.notifications.get(message.method) ?? [];
      list.push(message.params);
      if (list.length > 200) list.splice(0, list.length - 100);
      this.notifications.set(message.method, list);
    } else if (message.id === null && message.error) {
      this.nullIdErrors.push(message.error);
    } else if (message.id !== undefined && message.id !== null) {
      const pending = this.pending.get(message.id);
      const answer: Answer = {
        id: message.id, result: message.result, error: message.error,
        latencyMs: pending ? performance.now() - pending.sentAt : Number.NaN,
      };
      this.answers.set(message.id, answer);
      if (pending) {
        this.pending.delete(message.id);
        pending.resolve(answer);
      }
    }
  }

  private answerServerRequest(id: RequestId, method: string, params: unknown): void {
    let result: unknown = null;
    if (method === 'workspace/configuration') {
      const items = (params as { items?: unknown[] } | undefined)?.items ?? [];
      result = items.map(() => this.configuration);
    }
    void this.write(frame(JSON.stringify({ jsonrpc: '2.0', id, result })));
  }
}

interface ServerMessage {
  id?: RequestId | null;
  method?: string;
  params?: unknown;
  result?: unknown;
  error?: { code: number; message: string };
}

/** A `Content-Length` framed message. */
export function frame(body: string | Buffer): Buffer {
  const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
  return Buffer.concat([Buffer.from(`Content-Length: ${bytes.length}\r\n\r\n`, 'ascii'), bytes]);
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
