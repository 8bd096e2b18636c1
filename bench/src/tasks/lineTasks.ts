/**
 * Line tasks (RepoEval line-level): a non-blank, non-comment line with at least 6 non-space
 * characters; the cursor after its indentation; the target is the rest of the line.
 * Docstrings (any statement that is only a string) and lines inside multi-line strings are
 * prose, not code, and are left out.
 */
import type { FileIndex } from '../../../server/src/indexing/types.js';
import type { SyntaxNode, Tree } from '../../../server/src/languages/syntaxTree.js';
import type { TaskSpan } from './types.js';

/** Minimum non-space characters of a target line (RepoEval's filter). */
export const MIN_LINE_CHARS = 6;

/** Every line of `file` that qualifies as a line task. */
export function lineSpans(file: FileIndex, tree: Tree): TaskSpan[] {
  const proseLines = proseRows(tree);
  const spans: TaskSpan[] = [];
  file.lines.forEach((text, line) => {
    if (proseLines.has(line) || !isCodeLine(text)) return;
    const character = text.length - text.trimStart().length;
    spans.push({ type: 'line', start: { line, character }, end: { line, character: text.length } });
  });
  return spans;
}

/** Non-comment with enough non-space characters. */
export function isCodeLine(text: string): boolean {
  const trimmed = text.trim();
  if (trimmed.startsWith('#')) return false;
  return trimmed.replace(/\s/g, '').length >= MIN_LINE_CHARS;
}

/** Rows of string-only statements (docstrings) and rows inside strings spanning several lines. */
export function proseRows(tree: Tree): Set<number> {
  const rows = new Set<number>();
  const addRows = (node: SyntaxNode) => {
    for (let row = node.startPosition.row; row <= node.endPosition.row; row++) rows.add(row);
  };
  for (const node of tree.rootNode.descendantsOfType(['string', 'expression_statement'])) {
    if (!node) continue;
    if (node.type === 'string' && node.endPosition.row > node.startPosition.row) addRows(node);
    const only = node.type === 'expression_statement' && node.namedChildCount === 1 ? node.namedChildren[0] : undefined;
    if (only?.type === 'string' || only?.type === 'concatenated_string') addRows(node);
  }
  return rows;
}
