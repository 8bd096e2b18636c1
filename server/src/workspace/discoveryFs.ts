/**
 * The narrow file-system port discovery reads through. Tests inject failures (EACCES while running
 * as root, files vanishing mid-walk) that the real file system cannot produce on demand.
 */
import { readdir, readFile, realpath, stat } from 'node:fs/promises';
import type { SkipReason } from '../indexing/types.js';
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

/** The file-system operations discovery uses; errors carry a Node `code` (ENOENT, EACCES, ELOOP...). */
export interface DiscoveryFs {
  readdir(dir: string): Promise<DirEntry[]>;
  readFile(file: string): Promise<Uint8Array>;
  stat(p: string): Promise<FileStat>;
  realpath(p: string): Promise<string>;
}

/** The real file system. */
export const nodeDiscoveryFs: DiscoveryFs = {
  readdir: (dir) => readdir(dir, { withFileTypes: true }),
  readFile: (file) => readFile(file),
  stat: (p) => stat(p),
  realpath: (p) => realpath(p),
};

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
const ROUTINE: ReadonlySet<SkipReason> = new Set(['ignored-by-gitignore', 'vendored-or-generated-directory', 'not-python']);

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
