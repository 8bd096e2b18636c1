/**
 * A server's end of a model host (modelHost.ts): finds the host for these load options on its
 * socket or starts it, checks that what answers is a host of this user, sends operations and
 * forwards their cancellation, and turns the host's end into one description and a rejection of
 * everything it still owed. Nothing here waits on a host that is gone.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { closeSync, existsSync, openSync, readdirSync, readFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  CancellationTokenSource, createMessageConnection, SocketMessageReader, SocketMessageWriter, type MessageConnection,
} from 'vscode-jsonrpc/node';
import { SERVER_NODE_FLAGS } from '../../../../shared/nodeFlags.js';
import type { HostConnectionOptions, LoadModelOptions } from '../completionModel.js';
import type { Logger } from '../../util/logger.js';
import { packageRoot } from '../../util/packageRoot.js';
import { ensurePrivateDirectory, HOST_DIR_VARIABLE, hostDirectory, hostEndpoint, refuseSocket, type HostEndpoint, type OwnerCheck } from './hostEndpoint.js';
import {
  decodeError, helloRequest, HOST_LOG_START, HOST_PRODUCT, HOST_PROTOCOL, logNotification, operationRequest,
  type Greeting, type HostOperation, type OperationResults, type ReuseCounts, type TokenPiece,
} from './hostProtocol.js';

/** The built host beside this module; from the TypeScript sources (vitest), the build's copy. */
function hostScript(): string {
  const beside = fileURLToPath(new URL('./modelHost.js', import.meta.url));
  if (existsSync(beside)) return beside;
  return path.join(packageRoot(), 'dist', 'server', 'src', 'model', 'childProcess', 'modelHost.js');
}

/**
 * How long a host may take to answer a request it was told to abort. The host checks its signal
 * between generated tokens and between prompt chunks sized to take ~250 ms (32 tokens at least: under
 * a second at worst on a slow CPU), and a waiting request leaves the queue at once, so silence this
 * long after an abort means it is stuck (a hung native call): it is then killed, and treated as a crash.
 */
export const ABORT_GRACE_MS = 30_000;
/** How long a private host, whose only server left, may take to free its model before it is killed. */
const EXIT_GRACE_MS = 3_000;
/** A host started now listens within this (node's start and one import), else it failed. */
const START_TIMEOUT_MS = 15_000;
/** What answers on the socket must greet within this, or it is not a model host. */
const HELLO_TIMEOUT_MS = 5_000;
/** Connections to a host that closed them before greeting, tried before giving up (see open). */
const GREET_ATTEMPTS = 4;
const GREET_RETRY_MS = 100;
/** The end of the host's log read to name a crash (llama.cpp prints its assert there). */
const LOG_TAIL_BYTES = 8_192;
const DEFAULT_CONNECTION: HostConnectionOptions = { shared: true, idleSeconds: 300 };

/** Rejects what a host owed when it died; {@link ModelHostConnection.failure} says the same. */
export class ModelHostExitedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ModelHostExitedError';
  }
}

export interface ModelHostOptions {
  /** See {@link ABORT_GRACE_MS} (tests shorten it). */
  abortGraceMs?: number;
  /** The hosts' folder; default {@link hostDirectory}. */
  directory?: string;
  /** Who this user is to the ownership checks (tests play another user). */
  owner?: OwnerCheck;
}

interface Pending {
  resolve(reply: Reply<unknown>): void;
  reject(error: Error): void;
}

type Reply<T> = { value: T; reuse?: ReuseCounts; waitedMs?: number; pieces?: TokenPiece[] };

export class ModelHostConnection {
  private readonly pending = new Set<Pending>();
  private exitDescription?: string;
  private retryable = false;
  private stopping = false;
  private stuck = false;
  private readonly closed: Promise<void>;

  private constructor(
    private readonly connection: MessageConnection,
    private readonly greeting: Greeting,
    private readonly endpoint: HostEndpoint,
    /** The host process, when this server started it: its exit status names a crash exactly. */
    private readonly child: ChildProcess | undefined,
    private readonly privateHost: boolean,
    private readonly logger: Logger,
    private readonly abortGraceMs: number,
  ) {
    connection.onNotification(logNotification, ({ level, message }) => logger[level](message));
    this.closed = new Promise((resolve) => connection.onClose(() => void this.onClose().then(resolve)));
  }

  /**
   * Connects to the host for `load` (its options pick the socket), starting it if none listens.
   * Throws, with what to do, when the folder or socket is not this user's or what answers is not
   * a host.
   */
  static async open(load: LoadModelOptions, logger: Logger, options: ModelHostOptions = {}): Promise<ModelHostConnection> {
    const settings = load.host ?? DEFAULT_CONNECTION;
    const directory = options.directory ?? hostDirectory();
    ensurePrivateDirectory(directory, options.owner);
    const endpoint = hostEndpoint(load, directory, serverVersion(), settings.shared ? undefined : `${process.pid}-${randomUUID()}`);
    const refusal = refuseSocket(endpoint.socket, options.owner);
    if (refusal) throw new Error(refusal);
    for (let attempt = 1; ; attempt++) {
      const { socket, child } = await connectOrStart(endpoint, settings.shared ? settings.idleSeconds : 0, logger);
      const connection = listeningConnection(socket);
      try {
        const greeting = await greet(connection, socket, endpoint.socket);
        logger.debug(`model host ${greeting.pid} at ${endpoint.socket}: ${child ? 'started by this server' : `shared with ${greeting.clients - 1} other server(s)`}`);
        return new ModelHostConnection(connection, greeting, endpoint, child, !settings.shared, logger, options.abortGraceMs ?? ABORT_GRACE_MS);
      } catch (error) {
        // A host that is dying (killed, or exiting idle) still takes connections until the kernel
        // closes its socket, then drops them: look again, and the socket refuses or a new host answers.
        if (!(error instanceof HostGoneWhileGreetingError)) throw error;
        if (attempt >= GREET_ATTEMPTS) {
          throw new Error(`the model host at ${endpoint.socket} closed the connection before greeting, ${attempt} times (${error.message}); its log: ${endpoint.log}`);
        }
        logger.debug(`the model host at ${endpoint.socket} closed the connection before greeting (${error.message}); connecting again`);
        await new Promise((resolve) => setTimeout(resolve, GREET_RETRY_MS));
      }
    }
  }

  /** Why the host is gone, for the user (undefined while it runs, or after dispose). */
  get failure(): string | undefined {
    return this.stopping ? undefined : this.exitDescription;
  }

  /** True when the host was stopped from outside and named no fault of the model: load it again. */
  get failureRetryable(): boolean {
    return this.failure !== undefined && this.retryable;
  }

  /** The host's process id (memory reports, tests). */
  get pid(): number {
    return this.greeting.pid;
  }

  get isRunning(): boolean {
    return this.exitDescription === undefined;
  }

  /**
   * Sends one operation and resolves with its reply. An abort of `signal` cancels it at the host,
   * whose reply then settles the call (an aborted generate() still answers with its partial text).
   */
  request<K extends HostOperation['op']>(operation: Extract<HostOperation, { op: K }>, signal?: AbortSignal): Promise<Reply<OperationResults[K]>> {
    if (this.exitDescription !== undefined) return Promise.reject(new ModelHostExitedError(this.exitDescription));
    const cancellation = new CancellationTokenSource();
    return new Promise<Reply<OperationResults[K]>>((resolve, reject) => {
      const pending: Pending = { resolve: resolve as Pending['resolve'], reject };
      this.pending.add(pending);
      const abort = (): void => {
        cancellation.cancel();
        this.expectAnswerSoon(pending);
      };
      if (signal?.aborted) abort();
      else signal?.addEventListener('abort', abort, { once: true });
      const settle = (): void => {
        this.pending.delete(pending);
        signal?.removeEventListener('abort', abort);
        cancellation.dispose();
      };
      this.connection.sendRequest(operationRequest, operation, cancellation.token).then((reply) => {
        settle();
        if (reply.kind === 'result') resolve({ value: reply.value as OperationResults[K], reuse: reply.reuse, waitedMs: reply.waitedMs, pieces: reply.pieces });
        else reject(decodeError(reply.error));
      }, () => undefined); // a connection that closed rejects every request: onClose answers them instead
    });
  }

  /**
   * Leaves the host. A shared host serves on, for other servers and for this file's next load, until
   * it has been idle for its idle time; a private one exits now, and is killed if it does not.
   */
  async dispose(): Promise<void> {
    if (this.exitDescription !== undefined) return;
    this.stopping = true;
    this.connection.dispose();
    if (!this.privateHost || !this.child) return;
    const child = this.child;
    if (child.exitCode !== null || child.signalCode !== null) return;
    const timer = setTimeout(() => child.kill('SIGKILL'), EXIT_GRACE_MS);
    await new Promise((resolve) => child.once('exit', resolve));
    clearTimeout(timer);
  }

  /** Kills the host if `pending`, aborted, is still unanswered after the grace period. */
  private expectAnswerSoon(pending: Pending): void {
    const timer = setTimeout(() => {
      if (!this.pending.has(pending) || this.exitDescription !== undefined) return;
      this.stuck = true;
      this.logger.error(`the model process did not answer ${this.abortGraceMs} ms after a cancel; stopping it`);
      killQuietly(this.greeting.pid);
    }, this.abortGraceMs);
    timer.unref();
  }

  private async onClose(): Promise<void> {
    if (this.exitDescription !== undefined) return;
    const { description, retryable } = await this.describeEnd();
    this.exitDescription = description;
    this.retryable = retryable;
    if (!this.stopping) this.logger.error(`${description}; its last lines: ${logTail(this.endpoint.log).join(' | ') || 'none'}`);
    const error = new ModelHostExitedError(description);
    for (const pending of this.pending) pending.reject(error);
    this.pending.clear();
  }

  /**
   * Why the host went: stuck (we stopped it), the exit status where this server started it, and
   * the assertion llama.cpp left in the host's log. A host stopped from outside (SIGKILL, SIGTERM,
   * or gone without a word) is no fault of the model, so it may be started again.
   */
  private async describeEnd(): Promise<{ description: string; retryable: boolean }> {
    const exit = this.child ? await exitStatus(this.child) : undefined;
    if (this.stuck) return { description: `the model process stopped answering (no reply ${this.abortGraceMs / 1000} s after a cancel) and was stopped`, retryable: false };
    const cause = crashCause(logTail(this.endpoint.log));
    if (exit) {
      const how = exit.signal ? `was killed by ${exit.signal}` : `exited with code ${exit.code}`;
      const fromOutside = exit.signal === 'SIGKILL' || exit.signal === 'SIGTERM' || exit.code === 0;
      return { description: `the model process ${how}${cause ? ` (${cause})` : ''}`, retryable: fromOutside && !cause };
    }
    return { description: `the model process ${this.greeting.pid} (shared with other windows) ended${cause ? ` (${cause})` : ''}`, retryable: !cause };
  }
}

/** The socket connected, to a running host or to one this server starts now. */
async function connectOrStart(endpoint: HostEndpoint, idleSeconds: number, logger: Logger): Promise<{ socket: net.Socket; child?: ChildProcess }> {
  const existing = await tryConnect(endpoint.socket);
  if (existing instanceof net.Socket) return { socket: existing };
  const child = startHost(endpoint, idleSeconds);
  logger.debug(`started model host ${child.pid} at ${endpoint.socket}`);
  const deadline = performance.now() + START_TIMEOUT_MS;
  for (;;) {
    const attempt = await tryConnect(endpoint.socket);
    // A host started at the same moment by another server may have won the socket: ours then exits 0.
    if (attempt instanceof net.Socket) return child.exitCode === null ? { socket: attempt, child } : { socket: attempt };
    const died = child.exitCode !== null && child.exitCode !== 0 || child.signalCode !== null;
    if (died || performance.now() > deadline) {
      if (!died) child.kill('SIGKILL');
      const lines = logTail(endpoint.log).join(' | ');
      throw new Error(`the model host did not start${died ? ` (${child.signalCode ?? `exit code ${child.exitCode}`})` : ' in time'}: ${lines || 'no output'}. ` +
        `Its folder must take sockets (a local disk): set ${HOST_DIR_VARIABLE} to another if it does not`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function startHost(endpoint: HostEndpoint, idleSeconds: number): ChildProcess {
  const script = hostScript();
  if (!existsSync(script)) throw new Error(`the model host ${script} is missing: the server's install is incomplete (run npm run build, or reinstall)`);
  const log = openSync(endpoint.log, 'a', 0o600);
  try {
    const child = spawn(process.execPath, [...SERVER_NODE_FLAGS, script, endpoint.socket, String(idleSeconds), endpoint.pid], {
      // Its own session: the host outlives the window that started it, for the others.
      detached: true,
      stdio: ['ignore', log, log],
      env: hostEnvironment(process.env),
    });
    child.on('error', () => undefined); // a failed start is seen as no host listening
    child.unref();
    return child;
  } finally {
    closeSync(log);
  }
}

/**
 * The model host's environment: the server's, plus two settings for llama.cpp. ggml would
 * otherwise try to attach gdb for a backtrace before it aborts (seconds). glibc gives every thread
 * that allocates its own malloc arena, and the host's (llama.cpp's workers, node's pools) keep
 * freed memory there: two arenas hold the host ~35–45 MB smaller with two or three windows
 * connected, at unchanged latency (docs/benchmarks.md, "Beside other work"). A value the user set
 * is kept; other C libraries ignore the variable.
 */
export function hostEnvironment(serverEnvironment: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return { MALLOC_ARENA_MAX: '2', ...serverEnvironment, GGML_NO_BACKTRACE: '1' };
}

/** A connected socket, or the error code (ENOENT: no host; ECONNREFUSED: a dead host's file). */
function tryConnect(socketPath: string): Promise<net.Socket | string> {
  return new Promise((resolve) => {
    const socket = net.connect(socketPath);
    socket.once('connect', () => {
      socket.removeAllListeners('error');
      resolve(socket);
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
  });
}

/** JSON-RPC over a connected host socket, listening; a socket error is handled by the close that follows. */
function listeningConnection(socket: net.Socket): MessageConnection {
  const connection = createMessageConnection(new SocketMessageReader(socket), new SocketMessageWriter(socket));
  socket.on('error', () => undefined);
  connection.listen();
  return connection;
}

/** The socket closed before its host greeted: a host on its way out, not a foreign process. */
class HostGoneWhileGreetingError extends Error {}

/**
 * Asks what answers on `socket` to greet as a host. Throws {@link HostGoneWhileGreetingError} when
 * the connection closes first, and the "not a host" error, with the fix, when it answers otherwise
 * or not at all.
 */
async function greet(connection: MessageConnection, socket: net.Socket, socketPath: string, probe = false): Promise<Greeting> {
  const notAHost = `${socketPath} answers, but not as a RepoShapley model host of this version; remove it so that one can start there`;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(notAHost)), HELLO_TIMEOUT_MS)));
  let onClose = (): void => undefined;
  const closed = new Promise<never>((_, reject) => (onClose = () => reject(new HostGoneWhileGreetingError('closed'))));
  socket.once('close', onClose);
  try {
    const greeting = await Promise.race([connection.sendRequest(helloRequest, { protocol: HOST_PROTOCOL, ...(probe ? { probe } : {}) }), timeout, closed]);
    if (greeting?.product !== HOST_PRODUCT || greeting.protocol !== HOST_PROTOCOL) throw new Error(notAHost);
    return greeting;
  } catch (error) {
    connection.dispose();
    if (error instanceof HostGoneWhileGreetingError || (error instanceof Error && error.message !== notAHost && socket.destroyed)) {
      throw new HostGoneWhileGreetingError((error as Error).message);
    }
    throw error instanceof Error && error.message === notAHost ? error : new Error(`${notAHost} (${(error as Error).message})`);
  } finally {
    clearTimeout(timer);
    socket.off('close', onClose);
    closed.catch(() => undefined);
  }
}

/** A running host as `reposhapley model hosts` lists it. */
export interface RunningHost {
  socket: string;
  pid: number;
  /** Servers connected now. */
  clients: number;
  model?: string;
}

/**
 * The hosts listening in `directory` (default {@link hostDirectory}), asked without counting as a
 * server; sockets nobody answers on (a crashed host's) are left out.
 */
export async function listHosts(directory = hostDirectory()): Promise<RunningHost[]> {
  let names: string[];
  try {
    names = readdirSync(directory).filter((name) => name.endsWith('.sock'));
  } catch {
    return [];
  }
  const found = await Promise.all(names.map(async (name) => {
    const socketPath = path.join(directory, name);
    const socket = await tryConnect(socketPath);
    if (!(socket instanceof net.Socket)) return undefined;
    const connection = listeningConnection(socket);
    try {
      const { pid, clients, model } = await greet(connection, socket, socketPath, true);
      return { socket: socketPath, pid, clients, ...(model ? { model } : {}) };
    } catch {
      return undefined;
    } finally {
      connection.dispose();
      socket.destroy();
    }
  }));
  return found.filter((host): host is RunningHost => host !== undefined);
}

/** The child's exit status, waiting a moment for it: the socket closes just before the process ends. */
async function exitStatus(child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null } | undefined> {
  if (child.exitCode === null && child.signalCode === null) {
    await new Promise((resolve) => {
      const timer = setTimeout(resolve, 1_000);
      child.once('exit', () => {
        clearTimeout(timer);
        resolve(undefined);
      });
    });
  }
  if (child.exitCode === null && child.signalCode === null) return undefined;
  return { code: child.exitCode, signal: child.signalCode };
}

/** The host's last log lines since it last started. */
export function logTail(logPath: string): string[] {
  let text: string;
  try {
    const buffer = readFileSync(logPath);
    text = buffer.subarray(Math.max(0, buffer.length - LOG_TAIL_BYTES)).toString('utf8');
  } catch {
    return [];
  }
  const lines = text.split('\n').filter((line) => line.trim() !== '');
  const start = lines.findLastIndex((line) => line.startsWith(HOST_LOG_START));
  return lines.slice(start + 1).slice(-8);
}

/**
 * The line that names why the host died: llama.cpp's `file.cpp:123: GGML_ASSERT(...) failed`
 * (without the build machine's directories), a C++ `what():`, else nothing.
 */
export function crashCause(lines: readonly string[]): string | undefined {
  const line = [...lines].reverse().find((l) => /GGML_ASSERT|GGML_ABORT|what\(\)|Assertion .* failed|fatal error/i.test(l));
  return line?.trim().replace(/^\S*\/(?=[^/\s]+:\d+:)/, 'llama.cpp ');
}

function killQuietly(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

let version: string | undefined;

/** This server's version: hosts of another install get another socket. */
export function serverVersion(): string {
  if (version) return version;
  try {
    const manifest = JSON.parse(readFileSync(path.join(packageRoot(), 'package.json'), 'utf8')) as { version?: string };
    version = `${manifest.version ?? '0'}:${hostScript()}`;
  } catch {
    version = hostScript();
  }
  return version;
}
