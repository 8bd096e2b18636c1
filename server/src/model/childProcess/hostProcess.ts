/**
 * The server's end of one model host (modelHost.ts): starts the child, matches replies to
 * requests, forwards aborts, and turns the child's death into one description and a rejection
 * of everything it still owed. Nothing here waits on a child that is gone.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Logger } from '../../util/logger.js';
import { packageRoot } from '../../util/packageRoot.js';
import {
  decodeError, type HostMessage, type HostOperation, type OperationResults, type ParentMessage, type ReuseCounts,
} from './hostProtocol.js';

/** The built host beside this module; from the TypeScript sources (vitest), the build's copy. */
function hostScript(): string {
  const beside = fileURLToPath(new URL('./modelHost.js', import.meta.url));
  if (existsSync(beside)) return beside;
  return path.join(packageRoot(), 'dist', 'server', 'src', 'model', 'childProcess', 'modelHost.js');
}

/** How long a host asked to exit may take to free its model before it is killed. */
const EXIT_GRACE_MS = 3_000;
/**
 * How long a host may take to answer a request it was told to abort. The host checks its signal
 * between generated tokens and between prompt chunks sized to take ~250 ms (32 tokens at least: under
 * a second at worst on a slow CPU), so silence this long after an abort means it is stuck (a hung native call): it is then
 * killed, and treated as a crash.
 */
export const ABORT_GRACE_MS = 30_000;
/** The host's last stderr lines kept to name the cause of a crash (llama.cpp prints its assert there). */
const STDERR_LINES_KEPT = 8;

/** Rejects what a host owed when it died; {@link ModelHostProcess.failure} says the same. */
export class ModelHostExitedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ModelHostExitedError';
  }
}

export interface ModelHostOptions {
  /** See {@link ABORT_GRACE_MS} (tests shorten it). */
  abortGraceMs?: number;
}

interface Pending {
  resolve(reply: { value: unknown; reuse?: ReuseCounts }): void;
  reject(error: Error): void;
}

export class ModelHostProcess {
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private readonly stderrTail: string[] = [];
  private exitDescription?: string;
  private readonly exited: Promise<void>;
  private stopping = false;

  private stuck = false;

  private constructor(private readonly child: ChildProcess, private readonly logger: Logger, private readonly abortGraceMs: number) {
    this.exited = new Promise((resolve) => {
      // 'close', not 'exit': by then stderr is drained, and llama.cpp's last line names the cause.
      child.once('close', (code, signal) => {
        this.onExit(this.stuck
          ? `the model process stopped answering (no reply ${this.abortGraceMs / 1000} s after a cancel) and was stopped`
          : describeExit(code, signal, crashCause(this.stderrTail)));
        resolve();
      });
      child.on('error', (error) => {
        this.logger.error(`model process: ${error.message}`);
        // A child that never started emits no 'close' to wait for.
        if (child.pid === undefined) {
          this.onExit(`the model process could not start (${error.message})`);
          resolve();
        }
      });
    });
    child.on('message', (message: HostMessage) => this.onMessage(message));
    forwardLines(child.stdout, (line) => this.logger.debug(`model process stdout: ${line}`));
    forwardLines(child.stderr, (line) => this.onStderr(line));
  }

  /** Starts a host. Its stdout is not ours: ours carries the LSP stream. */
  static start(logger: Logger, options: ModelHostOptions = {}): ModelHostProcess {
    const script = hostScript();
    if (!existsSync(script)) throw new Error(`the model host ${script} is missing: the server's install is incomplete (run npm run build, or reinstall)`);
    const child = fork(script, [], {
      serialization: 'advanced',
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
      execArgv: [],
      // ggml would otherwise try to attach gdb for a backtrace before it aborts (seconds).
      env: { ...process.env, GGML_NO_BACKTRACE: '1' },
    });
    return new ModelHostProcess(child, logger, options.abortGraceMs ?? ABORT_GRACE_MS);
  }

  /** Why the host is gone, for the user (undefined while it runs, or after a requested exit). */
  get failure(): string | undefined {
    return this.stopping ? undefined : this.exitDescription;
  }

  /** The host's process id (memory reports, tests). */
  get pid(): number | undefined {
    return this.child.pid;
  }

  get isRunning(): boolean {
    return this.exitDescription === undefined;
  }

  /**
   * Sends one operation and resolves with its reply. An abort of `signal` is passed to the host,
   * whose reply then settles the call (an aborted generate() still answers with its partial text).
   */
  request<K extends HostOperation['op']>(
    operation: Extract<HostOperation, { op: K }>, signal?: AbortSignal,
  ): Promise<{ value: OperationResults[K]; reuse?: ReuseCounts }> {
    if (this.exitDescription !== undefined) return Promise.reject(new ModelHostExitedError(this.exitDescription));
    const id = this.nextId++;
    const reply = new Promise<{ value: unknown; reuse?: ReuseCounts }>((resolve, reject) => this.pending.set(id, { resolve, reject }));
    this.send({ ...operation, id } as ParentMessage);
    if (signal) {
      const abort = () => {
        this.send({ op: 'abort', id });
        this.expectAnswerSoon(id);
      };
      if (signal.aborted) abort();
      else {
        signal.addEventListener('abort', abort, { once: true });
        void reply.catch(() => undefined).finally(() => signal.removeEventListener('abort', abort));
      }
    }
    return reply as Promise<{ value: OperationResults[K]; reuse?: ReuseCounts }>;
  }

  /** Asks the host to free its model and exit; kills it if it does not within the grace period. */
  async dispose(): Promise<void> {
    if (this.exitDescription !== undefined) return;
    this.stopping = true;
    this.send({ op: 'exit' });
    const timer = setTimeout(() => this.child.kill('SIGKILL'), EXIT_GRACE_MS);
    await this.exited;
    clearTimeout(timer);
  }

  /** Kills the host if request `id`, aborted, is still unanswered after the grace period. */
  private expectAnswerSoon(id: number): void {
    const timer = setTimeout(() => {
      if (!this.pending.has(id) || this.exitDescription !== undefined) return;
      this.stuck = true;
      this.logger.error(`the model process did not answer ${this.abortGraceMs} ms after a cancel; stopping it`);
      this.child.kill('SIGKILL');
    }, this.abortGraceMs);
    timer.unref();
  }

  private send(message: ParentMessage): void {
    if (!this.child.connected) return; // gone: the exit handler rejects what is pending
    this.child.send(message, (error) => {
      if (error && this.child.connected) this.logger.warn(`model process: could not send ${message.op}: ${error.message}`);
    });
  }

  private onMessage(message: HostMessage): void {
    if (message.kind === 'log') {
      this.logger[message.level](message.message);
      return;
    }
    const pending = this.pending.get(message.id);
    if (!pending) return;
    this.pending.delete(message.id);
    if (message.kind === 'result') pending.resolve({ value: message.value, reuse: message.reuse });
    else pending.reject(decodeError(message.error));
  }

  private onStderr(line: string): void {
    this.stderrTail.push(line);
    if (this.stderrTail.length > STDERR_LINES_KEPT) this.stderrTail.shift();
    this.logger.debug(`model process stderr: ${line}`);
  }

  private onExit(description: string): void {
    if (this.exitDescription !== undefined) return;
    this.exitDescription = description;
    if (!this.stopping) this.logger.error(`${this.exitDescription}; its last lines: ${this.stderrTail.join(' | ') || 'none'}`);
    const error = new ModelHostExitedError(this.exitDescription);
    for (const pending of this.pending.values()) pending.reject(error);
    this.pending.clear();
  }
}

function describeExit(code: number | null, signal: NodeJS.Signals | null, cause: string | undefined): string {
  const how = signal ? `was killed by ${signal}` : `exited with code ${code}`;
  return `the model process ${how}${cause ? ` (${cause})` : ''}`;
}

/**
 * The line that names why the host died: llama.cpp's `file.cpp:123: GGML_ASSERT(...) failed`
 * (without the build machine's directories), a C++ `what():`, else nothing.
 */
export function crashCause(lines: readonly string[]): string | undefined {
  const line = [...lines].reverse().find((l) => /GGML_ASSERT|GGML_ABORT|what\(\)|Assertion .* failed|fatal error/i.test(l));
  return line?.trim().replace(/^\S*\/(?=[^/\s]+:\d+:)/, 'llama.cpp ');
}

function forwardLines(stream: NodeJS.ReadableStream | null, onLine: (line: string) => void): void {
  if (!stream) return;
  let partial = '';
  stream.setEncoding('utf8');
  stream.on('data', (chunk: string) => {
    const lines = (partial + chunk).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) if (line.trim() !== '') onLine(line);
  });
  stream.on('end', () => {
    if (partial.trim() !== '') onLine(partial);
  });
}
