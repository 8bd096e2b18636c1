/**
 * Where a model host listens, and whether a socket found there may be trusted. One host serves
 * every server of one user that loads the same file with the same options, so its address is a
 * hash of those: the socket `<dir>/<key>.sock` and the host's own log `<dir>/<key>.log` (llama.cpp
 * prints its assert there before a native abort, which is how a server names a crash it did not
 * see). The folder is the user's alone (0700); a folder or socket owned by anyone else is refused,
 * because whoever answers on the socket sees every prompt.
 */
import { createHash } from 'node:crypto';
import { lstatSync, mkdirSync, type Stats } from 'node:fs';
import { homedir, userInfo } from 'node:os';
import path from 'node:path';
import type { LoadModelOptions } from '../completionModel.js';
import { fileStamp } from '../../util/fileStamp.js';
import { HOST_FAULT_VARIABLE, HOST_PROTOCOL } from './hostProtocol.js';

/** Overrides the hosts' folder (tests, benchmarks that must start cold). */
export const HOST_DIR_VARIABLE = 'REPOSHAPLEY_MODEL_HOST_DIR';
/** Linux's limit on a socket path is 108 bytes with the terminating zero. */
const MAX_SOCKET_PATH = 107;

export interface HostEndpoint {
  /** The socket (a named pipe on Windows). */
  socket: string;
  /** The host's stdout and stderr. */
  log: string;
  /** The host's process id while it listens. */
  pid: string;
}

/**
 * The per-user folder of model hosts: `$REPOSHAPLEY_MODEL_HOST_DIR`, else
 * `$XDG_RUNTIME_DIR/reposhapley` (a tmpfs the session owns), else the cache's `hosts` folder.
 */
export function hostDirectory(env: NodeJS.ProcessEnv = process.env, home = homedir()): string {
  if (env[HOST_DIR_VARIABLE]) return path.resolve(env[HOST_DIR_VARIABLE]);
  const runtime = env.XDG_RUNTIME_DIR;
  if (runtime && path.isAbsolute(runtime)) return path.join(runtime, 'reposhapley');
  const cache = env.XDG_CACHE_HOME && path.isAbsolute(env.XDG_CACHE_HOME) ? env.XDG_CACHE_HOME : path.join(home, '.cache');
  return path.join(cache, 'reposhapley', 'hosts');
}

/**
 * The host for these load options: servers share it when they load the same file (same size,
 * change time and inode) with the same options, from the same server version; `privateTo` (a
 * server's own id) gives that server a host of its own.
 */
export function hostEndpoint(options: LoadModelOptions, directory: string, version: string, privateTo?: string): HostEndpoint {
  const modelOptions = modelOptionsOf(options);
  const fault = process.env[HOST_FAULT_VARIABLE];
  const identity = JSON.stringify({ protocol: HOST_PROTOCOL, version, stamp: fileStamp(options.path), modelOptions, privateTo, fault });
  const key = createHash('sha256').update(identity).digest('hex').slice(0, 20);
  const log = path.join(directory, `${key}.log`);
  const pid = path.join(directory, `${key}.pid`);
  if (process.platform === 'win32') return { socket: `\\\\.\\pipe\\reposhapley-${userInfo().username}-${key}`, log, pid };
  const socket = path.join(directory, `${key}.sock`);
  if (socket.length > MAX_SOCKET_PATH) {
    throw new Error(`the model host's socket path ${socket} is longer than sockets allow; set ${HOST_DIR_VARIABLE} to a shorter folder`);
  }
  return { socket, log, pid };
}

/** The load options that shape the loaded model: not how a server connects, nor what it reads itself. */
export function modelOptionsOf(options: LoadModelOptions): Omit<LoadModelOptions, 'host' | 'hashPinned'> {
  const { host: _connection, hashPinned: _serverSide, ...modelOptions } = options;
  return modelOptions;
}

/** What the checks below read of the file system; injectable so that a test can be another user. */
export interface OwnerCheck {
  uid: number;
  lstat: (file: string) => Stats;
}

function currentUser(): OwnerCheck {
  return { uid: process.getuid?.() ?? -1, lstat: lstatSync };
}

/**
 * Creates the folder (0700) if needed and checks that it is a folder this user owns and no one
 * else may enter. Throws with what to do otherwise.
 */
export function ensurePrivateDirectory(directory: string, check: OwnerCheck = currentUser()): void {
  if (process.platform === 'win32') return;
  mkdirSync(directory, { recursive: true, mode: 0o700 });
  const stats = check.lstat(directory);
  if (!stats.isDirectory() || stats.uid !== check.uid) {
    throw new Error(`${directory} is not a folder of this user (owner uid ${stats.uid}): its model hosts are refused. Remove it, or set ${HOST_DIR_VARIABLE} to a folder of your own`);
  }
  if ((stats.mode & 0o077) !== 0) {
    throw new Error(`${directory} is open to other users (mode ${(stats.mode & 0o777).toString(8)}): its model hosts are refused. Run chmod 700 on it`);
  }
}

/**
 * Whether a socket at `socket` may be connected to: absent (undefined: start a host), or a socket
 * this user owns (undefined too). Anything else is a reason to refuse, in words.
 */
export function refuseSocket(socket: string, check: OwnerCheck = currentUser()): string | undefined {
  if (process.platform === 'win32') return undefined;
  let stats: Stats;
  try {
    stats = check.lstat(socket);
  } catch {
    return undefined;
  }
  if (!stats.isSocket()) return `${socket} is not a socket; remove it so that a model host can listen there`;
  if (stats.uid !== check.uid) return `the model host socket ${socket} belongs to another user (uid ${stats.uid}); it is refused. Remove it, or set ${HOST_DIR_VARIABLE}`;
  return undefined;
}
