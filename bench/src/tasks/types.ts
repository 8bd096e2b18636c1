/**
 * The benchmark's unit of work: one completion task cut from a repository file, following
 * RepoEval (line, API, function-body) and CrossCodeEval (API calls resolved across files).
 */

/** Task types; see bench/README.md for how each is chosen. */
export type TaskType = 'line' | 'api' | 'block';

/** All task types in report order. */
export const TASK_TYPES: readonly TaskType[] = ['line', 'api', 'block'];

/** A zero-based position in UTF-16 code units (LSP's default encoding, JS string indices). */
export interface Position {
  line: number;
  character: number;
}

/** Where a task's target sits in its file, before sampling: [start, end) in the file's text. */
export interface TaskSpan {
  type: TaskType;
  /** The cursor: where the target starts. */
  start: Position;
  /** Just after the target's last character (the end of its last line, newline excluded). */
  end: Position;
  /** For API tasks: the definition the call resolves to, in another file ([startLine, endLine), 0-based, decorators included). */
  callee?: { name: string; qualifiedName: string; relPath: string; kind: string; startLine: number; endLine: number };
}

/** A completion task: the file as the server must see it (prefix + suffix) and what it should produce. */
export interface BenchTask {
  /** Stable id: `repository/relPath:line:character:type` (1-based line and character). */
  id: string;
  type: TaskType;
  /** The Debian package whose module tree is the repository. */
  repository: string;
  /** Absolute workspace root the server indexes. */
  root: string;
  relPath: string;
  absPath: string;
  cursor: Position;
  /** Text before the cursor. */
  prefix: string;
  /** The ground truth Y, removed from the buffer the server sees. */
  target: string;
  /** Text after the target. The server's buffer is exactly `prefix + suffix`. */
  suffix: string;
  /** The completion mode the request asks for (line and API: one line; block: several). */
  mode: 'line' | 'block';
  callee?: TaskSpan['callee'];
}
