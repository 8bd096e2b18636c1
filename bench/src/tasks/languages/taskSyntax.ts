/**
 * What the task builder must know of one language's code, beyond what the server's registry
 * says (comments come from `editing.lexical`): which strings are prose, which nodes are calls,
 * and how a call's callee reaches a definition in another file through the index. One object per
 * language in this folder; `taskSyntaxes.ts` picks the one of a file.
 */
import type { Definition, FileIndex, IndexView } from '../../../../server/src/indexing/types.js';
import type { SyntaxNode } from '../../../../server/src/languages/syntaxTree.js';

/** One language's task syntax. */
export interface TaskSyntax {
  /** String node types: one spanning several lines is prose, never a line task. */
  stringTypes: readonly string[];
  /** Whether a statement that is only a string is documentation (Python's docstrings). */
  docstrings: boolean;
  /** Call node types, each with the field that holds its callee (`new_expression` -> `constructor`). */
  calls: Readonly<Record<string, string>>;
  /** The definition a callee node resolves to through the file's imports, if the index has it. */
  resolveCallee(callee: SyntaxNode, file: FileIndex, index: IndexView): Definition | undefined;
}
