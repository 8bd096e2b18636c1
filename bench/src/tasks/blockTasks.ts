/**
 * Block tasks (RepoEval function-level, without unit tests): the body of a function or method
 * of 3–15 lines. As in RepoEval the signature and docstring stay visible: the target starts at
 * the first statement after the docstring, the cursor after that line's indentation (where an
 * editor puts it after Enter), and ends at the end of the body's last line.
 */
import { lastRow, type SyntaxNode, type Tree } from '../../../server/src/languages/syntaxTree.js';
import type { FileIndex } from '../../../server/src/indexing/types.js';
import type { TaskSpan } from './types.js';

/** Body lengths (lines, first statement to last line inclusive) a block task may have. */
export const MIN_BLOCK_LINES = 3;
export const MAX_BLOCK_LINES = 15;

/** Every function body of `file` that qualifies as a block task. */
export function blockSpans(file: FileIndex, tree: Tree): TaskSpan[] {
  const spans: TaskSpan[] = [];
  for (const node of tree.rootNode.descendantsOfType('function_definition')) {
    const span = node ? bodySpan(node, file.lines) : undefined;
    if (span) spans.push(span);
  }
  return spans;
}

function bodySpan(definition: SyntaxNode, lines: readonly string[]): TaskSpan | undefined {
  const body = definition.childForFieldName('body');
  if (!body || definition.hasError) return undefined;
  const statements = body.namedChildren.filter((child): child is SyntaxNode => child !== null && child.type !== 'comment');
  const first = isDocstring(statements[0]) ? statements[1] : statements[0];
  if (!first) return undefined;
  const { row, column } = first.startPosition;
  // `def f(): return 1` or `"""doc"""; x = 1`: the body does not start a line of its own.
  if ((lines[row] ?? '').slice(0, column).trim() !== '') return undefined;
  const endRow = lastRow(body);
  const length = endRow - row + 1;
  if (length < MIN_BLOCK_LINES || length > MAX_BLOCK_LINES) return undefined;
  return { type: 'block', start: { line: row, character: column }, end: { line: endRow, character: (lines[endRow] ?? '').length } };
}

function isDocstring(statement: SyntaxNode | undefined): boolean {
  return statement?.type === 'expression_statement' && statement.namedChildren.length === 1
    && statement.namedChildren[0]?.type === 'string';
}
