/**
 * Line tasks (RepoEval line-level): a non-blank, non-comment line with at least 6 non-space
 * characters; the cursor after its indentation; the target is the rest of the line.
 * Comments are the language's (`editing.lexical`): lines that start one, and the lines of a
 * block comment. Prose is left out too: strings spanning several lines and, where the language
 * has them, docstrings (any statement that is only a string).
 */
import type { FileIndex } from '../../../server/src/indexing/types.js';
import type { LexicalRules } from '../../../server/src/languages/language.js';
import type { SyntaxNode, Tree } from '../../../server/src/languages/syntaxTree.js';
import { pythonTasks } from './languages/pythonTasks.js';
import type { TaskSyntax } from './languages/taskSyntax.js';
import type { TaskSpan } from './types.js';

/** Minimum non-space characters of a target line (RepoEval's filter). */
export const MIN_LINE_CHARS = 6;

/** Comment node types of the registered grammars (Rust names its two kinds). */
const COMMENT_TYPES = ['comment', 'line_comment', 'block_comment'];

/** Every line of `file` that qualifies as a line task. */
export function lineSpans(file: FileIndex, tree: Tree, lexical: LexicalRules, syntax: TaskSyntax): TaskSpan[] {
  const skipped = proseRows(tree, syntax);
  for (const row of blockCommentRows(tree, file.lines, lexical)) skipped.add(row);
  const spans: TaskSpan[] = [];
  file.lines.forEach((text, line) => {
    if (skipped.has(line) || !isCodeLine(text, lexical)) return;
    const character = text.length - text.trimStart().length;
    spans.push({ type: 'line', start: { line, character }, end: { line, character: text.length } });
  });
  return spans;
}

/** Not a comment line, and enough non-space characters. */
export function isCodeLine(text: string, lexical: Pick<LexicalRules, 'lineComments' | 'blockComment'>): boolean {
  const trimmed = text.trim();
  const commentStarts = lexical.blockComment ? [...lexical.lineComments, lexical.blockComment.open] : lexical.lineComments;
  if (commentStarts.some((start) => trimmed.startsWith(start))) return false;
  return trimmed.replace(/\s/g, '').length >= MIN_LINE_CHARS;
}

/**
 * Rows of strings spanning several lines and, where the language has docstrings, of
 * string-only statements. Python's by default (the training data's targets share this rule).
 */
export function proseRows(tree: Tree, syntax: Pick<TaskSyntax, 'stringTypes' | 'docstrings'> = pythonTasks): Set<number> {
  const rows = new Set<number>();
  const types = syntax.docstrings ? [...syntax.stringTypes, 'expression_statement'] : syntax.stringTypes;
  for (const node of tree.rootNode.descendantsOfType([...types])) {
    if (!node) continue;
    if (node.type !== 'expression_statement' && node.endPosition.row > node.startPosition.row) addRows(rows, node);
    const only = node.type === 'expression_statement' && node.namedChildCount === 1 ? node.namedChildren[0] : undefined;
    if (only?.type === 'string' || only?.type === 'concatenated_string') addRows(rows, node);
  }
  return rows;
}

/**
 * Rows a block comment spanning several lines covers, but for its first row when code comes
 * before it and its last when code follows (`x = 1; /* … ` is still a line of code).
 */
function blockCommentRows(tree: Tree, lines: readonly string[], lexical: LexicalRules): Set<number> {
  const rows = new Set<number>();
  const open = lexical.blockComment?.open;
  if (!open) return rows;
  for (const node of tree.rootNode.descendantsOfType(COMMENT_TYPES)) {
    if (!node || node.endPosition.row === node.startPosition.row || !node.text.startsWith(open)) continue;
    const { row: first, column: startColumn } = node.startPosition;
    const { row: last, column: endColumn } = node.endPosition;
    const codeBefore = (lines[first] ?? '').slice(0, startColumn).trim() !== '';
    const codeAfter = (lines[last] ?? '').slice(endColumn).trim() !== '';
    for (let row = codeBefore ? first + 1 : first; row <= (codeAfter ? last - 1 : last); row++) rows.add(row);
  }
  return rows;
}

function addRows(rows: Set<number>, node: SyntaxNode): void {
  for (let row = node.startPosition.row; row <= node.endPosition.row; row++) rows.add(row);
}
