/**
 * What languages with braces and C comments share (JavaScript, TypeScript, Go, Rust): a
 * definition's signature is its header before the body's brace, its documentation the comment
 * right above it, its blocks open with `{`.
 */
import type { LexicalRules } from './language.js';
import type { SyntaxNode } from './syntaxTree.js';

/**
 * The header of a definition: from `start` (the outer node: `export`, `pub`, attributes excluded
 * by the caller when it passes the inner node) to the body's start, comments dropped,
 * whitespace collapsed. Without a body (a declaration, an interface member) the whole node.
 */
export function headerSignature(start: SyntaxNode, body: SyntaxNode | null, text: string): string {
  const end = body && body.startIndex > start.startIndex ? body.startIndex : start.endIndex;
  let header = text.slice(start.startIndex, end);
  if (header.includes('//') || header.includes('/*')) {
    const comments = start.descendantsOfType(['comment', 'line_comment', 'block_comment'])
      .filter((c) => c !== null && c.startIndex >= start.startIndex && c.endIndex <= end)
      .reverse();
    for (const comment of comments) header = header.slice(0, comment!.startIndex - start.startIndex) + header.slice(comment!.endIndex - start.startIndex);
  }
  // Line breaks inside brackets are layout: `(\n    a,\n)` reads best as `(a,)`.
  return header
    .replace(/([([{<])\s*\n\s*/g, '$1')
    .replace(/\s*\n\s*([)\]}>])/g, '$1')
    .replace(/\s+/g, ' ')
    .replace(/\s*\{\s*$/, '')
    .trim();
}

/**
 * The first line of text of the comments directly above `outer` (no blank line between): `//`,
 * `///`, `/** … *\/` doc comments alike, markers stripped. Undefined when there is none.
 */
export function precedingComment(outer: SyntaxNode, text: string, commentTypes: readonly string[]): string | undefined {
  // Most definitions have none: a comment that counts ends on the line above or on this one, so
  // one of them holds `//` or `*/`. Reading the text spares asking the tree for siblings.
  const above = textFromLineAbove(outer.startIndex, text);
  if (!above.includes('//') && !above.includes('*/')) return undefined;
  let first: SyntaxNode | undefined;
  let expectedEndRow = outer.startPosition.row;
  for (let node = outer.previousSibling; node && commentTypes.includes(node.type); node = node.previousSibling) {
    // The comment must end on the line before the next one starts (or on the same line).
    if (expectedEndRow - lastCommentRow(node) > 1) break;
    first = node;
    expectedEndRow = node.startPosition.row;
  }
  if (!first) return undefined;
  const block = text.slice(first.startIndex, outer.startIndex);
  for (const line of block.split('\n')) {
    const stripped = line.trim().replace(/^(\/\/+!?|\/\*+!?|\*+\/?|#\[.*)/, '').replace(/\*+\/$/, '').trim();
    if (stripped) return stripped;
  }
  return undefined;
}

/** The text from the start of the line above `index`'s line up to `index`. */
export function textFromLineAbove(index: number, text: string): string {
  const lineStart = text.lastIndexOf('\n', index - 1);
  const aboveStart = lineStart <= 0 ? 0 : text.lastIndexOf('\n', lineStart - 1) + 1;
  return text.slice(aboveStart, index);
}

function lastCommentRow(node: SyntaxNode): number {
  const end = node.endPosition;
  return end.column === 0 && end.row > node.startPosition.row ? end.row - 1 : end.row;
}

/** `//` and `/* *\/` comments; the quotes are each language's. */
export function cStyleLexical(quotes: readonly string[], multiLineQuotes: readonly string[], rawQuotes: readonly string[] = []): LexicalRules {
  return { lineComments: ['//'], blockComment: { open: '/*', close: '*/' }, quotes, multiLineQuotes, rawQuotes };
}

/** A brace language's block opener: the line ends with `{` (a multi-line completion may fill it). */
export function opensBraceBlock(line: string): boolean {
  return line.trimEnd().endsWith('{');
}
