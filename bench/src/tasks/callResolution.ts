/**
 * Resolves a call's callee to a definition through the server's index: the calling file's
 * import records (resolved to workspace files by the server's import resolver) and the symbol
 * graph (`definitionsNamed`). Each language's rules are in `languages/<name>Tasks.ts`; this is
 * the one entry point, chosen by the calling file's language.
 */
import type { Definition, FileIndex, IndexView } from '../../../server/src/indexing/types.js';
import type { SyntaxNode } from '../../../server/src/languages/syntaxTree.js';
import { taskSyntaxOfPath } from './languages/taskSyntaxes.js';

/** The definition `callee` (a call's callee node: `function`, or `constructor` of `new`) resolves to, when it is in the index. */
export function resolveCallee(callee: SyntaxNode, file: FileIndex, index: IndexView): Definition | undefined {
  return taskSyntaxOfPath(file.relPath)?.resolveCallee(callee, file, index);
}

