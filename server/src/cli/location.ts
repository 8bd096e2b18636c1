/** Parsing `FILE:LINE:COL` (1-based, as compilers print) and finding a file's workspace root. */
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { LANGUAGES } from '../languages/registry.js';

/** A cursor location from the command line, 0-based after parsing. */
export interface CliLocation {
  file: string;
  line: number;
  character: number;
}

/**
 * `FILE:LINE:COL` or `FILE:LINE` (column 1) -> an absolute path and a 0-based position.
 * The numbers are taken from the right, so paths with colons still parse.
 */
export function parseLocation(text: string, cwd: string = process.cwd()): CliLocation | undefined {
  const match = /^(.+?):(\d+)(?::(\d+))?$/.exec(text);
  if (!match) return undefined;
  const line = Number(match[2]);
  const column = match[3] === undefined ? 1 : Number(match[3]);
  if (line < 1 || column < 1) return undefined;
  return { file: path.resolve(cwd, match[1]), line: line - 1, character: column - 1 };
}

/** Files whose presence marks a project root: a repository, or any registered language's project file. */
export const ROOT_MARKERS: readonly string[] = ['.git', ...new Set(LANGUAGES.flatMap((language) => language.project.rootMarkers))];

/** The nearest ancestor of `file` holding a root marker, else the file's own directory. */
export function findWorkspaceRoot(file: string): string {
  const start = path.dirname(path.resolve(file));
  for (let dir = start; ; dir = path.dirname(dir)) {
    if (ROOT_MARKERS.some((marker) => existsSync(path.join(dir, marker)))) return dir;
    if (path.dirname(dir) === dir) return start;
  }
}

/** Whether `dir` exists and is a directory. */
export function isDirectory(dir: string): boolean {
  try {
    return statSync(dir).isDirectory();
  } catch {
    return false;
  }
}
