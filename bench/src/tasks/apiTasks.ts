/**
 * API tasks (RepoEval API-level, CrossCodeEval): a line with a call whose callee resolves,
 * through the server's index, to a function or class defined in ANOTHER file of the repository.
 * The cursor is at the start of the call (the callee's first character; `new` in JavaScript),
 * the target the rest of the line. One task per line: the leftmost such call. What a call is and
 * how its callee resolves is the file's language's (languages/).
 */
import type { Tree } from '../../../server/src/languages/syntaxTree.js';
import type { FileIndex, IndexView } from '../../../server/src/indexing/types.js';
import type { TaskSyntax } from './languages/taskSyntax.js';
import { taskSyntaxOfPath } from './languages/taskSyntaxes.js';
import type { TaskSpan } from './types.js';

/** Every line of `file` with a cross-file call, as an API task; `syntax` is the file's language's. */
export function apiSpans(file: FileIndex, tree: Tree, index: IndexView, syntax: TaskSyntax | undefined = taskSyntaxOfPath(file.relPath)): TaskSpan[] {
  if (!syntax) return [];
  const byLine = new Map<number, TaskSpan>();
  for (const call of tree.rootNode.descendantsOfType([...Object.keys(syntax.calls)])) {
    const callee = call?.childForFieldName(syntax.calls[call.type]!);
    if (!call || !callee) continue;
    const { row, column } = call.startPosition;
    const known = byLine.get(row);
    if (known && known.start.character <= column) continue;
    const definition = syntax.resolveCallee(callee, file, index);
    if (!definition || definition.relPath === file.relPath) continue;
    byLine.set(row, {
      type: 'api',
      start: { line: row, character: column },
      end: { line: row, character: (file.lines[row] ?? '').length },
      callee: {
        name: definition.name, qualifiedName: definition.qualifiedName, relPath: definition.relPath, kind: definition.kind,
        startLine: definition.startLine, endLine: definition.endLine,
      },
    });
  }
  return [...byLine.values()].sort((a, b) => a.start.line - b.start.line);
}
