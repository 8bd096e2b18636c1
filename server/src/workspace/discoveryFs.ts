/**
 * The narrow file-system port discovery reads through. Tests inject failures (EACCES while running
 * as root, files vanishing mid-walk) that the real file system cannot produce on demand.
 */
import { close, closeSync, constants, fstat, fstatSync, open, openSync, read, readFileSync, readlinkSync } from 'node:fs';
import { readdir, readFile, readlink, realpath, stat } from 'node:fs/promises';
import { promisify } from 'node:util';
import type { SkipReason } from './fileFilters.js';
import { isPathInside } from './paths.js';
import type { Logger } from '../util/logger.js';

/** A directory entry, as `readdir(dir, { withFileTypes: true })` gives it. */
export interface DirEntry {
  name: string;
  isFile(): boolean;
  isDirectory(): boolean;
  isSymbolicLink(): boolean;
}

/** File metadata discovery needs (follows symlinks). */
export interface FileStat {
  size: number;
  isFile(): boolean;
  isDirectory(): boolean;
}

/** What {@link DiscoveryFs.readExact} found. */
export type ExactRead =
  | { kind: 'ok'; bytes: Uint8Array }
  /** What was opened is not the path asked for: a directory on the way was swapped for a symlink. */
  | { kind: 'moved'; opened: string }
  | { kind: 'not-file' }
  | { kind: 'too-large'; size: number };

/** The file-system operations discovery uses; errors carry a Node `code` (ENOENT, EACCES, ELOOP...). */
export interface DiscoveryFs {
  readdir(dir: string): Promise<DirEntry[]>;
  readFile(file: string): Promise<Uint8Array>;
  stat(p: string): Promise<FileStat>;
  realpath(p: string): Promise<string>;
  /**
   * Open first, then check what was opened: reads the real path `file` only when the descriptor
   * is that very file (checking first and opening after can be raced by a symlink swap, issue 22).
   * Optional: a port without it (tests' fault injectors) is read by stat + readFile.
   */
  readExact?(file: string, tooLarge: (size: number) => boolean): Promise<ExactRead>;
}

/** The real file system (tests spread it and replace operations to inject faults). */
export const nodeDiscoveryFs: DiscoveryFs = {
  readdir: (dir) => readdir(dir, { withFileTypes: true }),
  readFile: (file) => readFile(file),
  stat: (p) => stat(p),
  realpath: (p) => realpath(p),
};

/** The real file system with race-free reads: what discovery uses unless given a port. */
export const defaultDiscoveryFs: DiscoveryFs = { ...nodeDiscoveryFs, readExact };

// Plain descriptors, not FileHandles: a workspace of small files reads hundreds of them, and a
// FileHandle's promise machinery (and readFile's own fstat) cost more than reading a 4 KB file.
const openFd = promisify(open);
const fstatFd = promisify(fstat);
const readFd = promisify(read);
const closeFd = promisify(close);

/**
 * How workspace files are opened. O_NOFOLLOW: the last component may not be a symlink.
 * O_NONBLOCK: a FIFO named x.py opens at once (and is then refused as not a file) instead of
 * blocking until someone writes to it.
 */
const CHECKED_OPEN = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

/** Where /proc shows what `fd` opened (Linux). */
const procPathOf = (fd: number): string => `/proc/self/fd/${fd}`;

async function readExact(file: string, tooLarge: (size: number) => boolean): Promise<ExactRead> {
  const fd = await openFd(file, CHECKED_OPEN);
  try {
    const opened = await openedPath(fd, file);
    if (opened !== file) return { kind: 'moved', opened };
    const info = await fstatFd(fd);
    if (!info.isFile()) return { kind: 'not-file' };
    if (tooLarge(info.size)) return { kind: 'too-large', size: info.size };
    return { kind: 'ok', bytes: await readSize(fd, info.size) };
  } finally {
    await closeFd(fd);
  }
}

/**
 * The file's first `size` bytes (its size when opened), stopping early at its end: one read for
 * an unchanged file. Bytes appended since are not read, as Node's readFile does not read them.
 */
async function readSize(fd: number, size: number): Promise<Uint8Array> {
  const buffer = Buffer.allocUnsafe(size);
  let length = 0;
  while (length < size) {
    const { bytesRead } = await readFd(fd, buffer, length, size - length, length);
    if (bytesRead === 0) break;
    length += bytesRead;
  }
  return buffer.subarray(0, length);
}

/** The path the kernel opened for `fd` (Linux's /proc); elsewhere the path asked for (O_NOFOLLOW is all the check there). */
async function openedPath(fd: number, file: string): Promise<string> {
  try {
    return await readlink(procPathOf(fd));
  } catch {
    return file;
  }
}

/**
 * A small file inside `rootReal` (a real path), read the way discovery reads sources, but
 * synchronously, for import resolution: opened first and then checked, so that neither a symlink
 * (at the end or on the way) nor a `..` takes the read outside the workspace; `O_NONBLOCK`, so a
 * FIFO named `tsconfig.json` is refused instead of blocking the server's thread for good.
 * Undefined when absent, outside, not a regular file, or over `maxBytes`.
 */
export function readContainedFileSync(file: string, rootReal: string, maxBytes: number): string | undefined {
  let fd: number;
  try {
    fd = openSync(file, CHECKED_OPEN);
  } catch {
    return undefined;
  }
  try {
    if (!isPathInside(openedPathSync(fd, file), rootReal)) return undefined;
    const info = fstatSync(fd);
    if (!info.isFile() || info.size > maxBytes) return undefined;
    return readFileSync(fd).toString('utf8');
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/** {@link openedPath}, synchronously. */
function openedPathSync(fd: number, file: string): string {
  try {
    return readlinkSync(procPathOf(fd));
  } catch {
    return file;
  }
}

/** A path discovery decided not to index, and why. */
export interface SkippedPath {
  absPath: string;
  /** Root-relative, forward slashes; '' for a root itself. */
  relPath: string;
  reason: SkipReason;
  /** Human-readable specifics for the log (which rule, which size...). */
  detail: string;
}

/** Node's error code, if the value is a system error. */
export function errorCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** Map a file-system error to a skip: vanished and forbidden paths are expected, never thrown. */
export function skipForError(absPath: string, relPath: string, error: unknown): SkippedPath {
  const code = errorCode(error);
  if (code === 'ELOOP') return { absPath, relPath, reason: 'symlink-loop', detail: 'too many levels of symbolic links' };
  const detail = code === 'ENOENT' ? 'no longer exists (deleted during the walk, or a dangling symlink)'
    : code === 'EACCES' || code === 'EPERM' ? 'permission denied'
    : `${code ?? 'error'}: ${error instanceof Error ? error.message : String(error)}`;
  return { absPath, relPath, reason: 'unreadable', detail };
}

/** Routine skips go to debug: a repo has thousands of ignored files and nobody needs them at info. */
const ROUTINE: ReadonlySet<SkipReason> = new Set(['ignored-by-gitignore', 'vendored-or-generated-directory', 'not-source']);

/** Logs each skip once per (reason, path) across runs sharing `reported`, and returns it. */
export function reportSkip(skip: SkippedPath, logger: Logger, reported: Set<string>): SkippedPath {
  const key = `${skip.reason}\0${skip.absPath}`;
  if (!reported.has(key)) {
    reported.add(key);
    const line = `skipped ${skip.relPath || skip.absPath}: ${skip.reason} (${skip.detail})`;
    if (ROUTINE.has(skip.reason)) logger.debug(line);
    else logger.info(line);
  }
  return skip;
}
