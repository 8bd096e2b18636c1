/**
 * Where an open document belongs in the index, judged synchronously (didOpen must not await):
 * inside a root, a source file of a registered language, not vendored, not ignored by any .gitignore on its path. The same
 * rules as discovery, so opening a file never adds something the walk would have left out.
 */
import * as path from 'node:path';
import { isSourcePath } from '../languages/registry.js';
import { readContainedFileSync } from '../workspace/discoveryFs.js';
import { DEFAULT_CONTENT_LIMITS, type SkipReason } from '../workspace/fileFilters.js';
import { ancestorDirs, gitignorePath, judgePath } from '../workspace/pathRules.js';
import { locateInRoots, type WorkspaceRoot } from '../workspace/paths.js';

/** An indexable document's relPath and canonical absolute path (root as given + relPath). */
export interface DocumentLocation {
  relPath: string;
  absPath: string;
}

/** Where the document goes, or why it is only held. */
export type DocumentPlacement =
  | { kind: 'indexable'; location: DocumentLocation }
  | { kind: 'excluded'; reason: SkipReason; detail: string };

/** Judge an open document's path against the roots and path rules. */
export function placeDocument(docPath: string, roots: readonly WorkspaceRoot[]): DocumentPlacement {
  const located = locateInRoots(docPath, roots);
  if (!located) return { kind: 'excluded', reason: 'outside-workspace', detail: roots.length === 0 ? 'no workspace roots yet' : 'outside every root' };
  const { root, relPath } = located;
  if (!isSourcePath(relPath)) return { kind: 'excluded', reason: 'not-source', detail: 'no registered language reads it' };
  const gitignores = new Map<string, string | undefined>();
  // Read under the root's real path, as discovery does: never through a symlink, never a FIFO (didOpen cannot wait).
  for (const dir of ancestorDirs(relPath)) gitignores.set(dir, readContainedFileSync(gitignorePath(root.real, dir), root.real, DEFAULT_CONTENT_LIMITS.maxBytes));
  const verdict = judgePath(relPath, gitignores);
  if (verdict) return { kind: 'excluded', ...verdict };
  // The canonical path is the one discovery builds, so buffer and disk entries share one key.
  return { kind: 'indexable', location: { relPath, absPath: path.join(root.path, ...relPath.split('/')) } };
}
