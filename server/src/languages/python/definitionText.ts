/**
 * The text-derived parts of a definition: its signature (header up to the colon, comments
 * dropped, whitespace collapsed, decorators excluded) and the first line of its docstring.
 */
import type { SyntaxNode } from '../syntaxTree.js';

/** `def`/`class` up to its colon, comments dropped, whitespace collapsed. */
export function signatureOf(node: SyntaxNode, body: SyntaxNode | null, text: string): string {
  let colon: SyntaxNode | undefined;
  for (const child of node.children) {
    if (!child || (body && child.startIndex >= body.startIndex)) break;
    if (child.type === ':') colon = child;
  }
  const start = node.startIndex;
  const end = colon ? colon.endIndex : lineEnd(text, start);
  let header = text.slice(start, end);
  if (colon && header.includes('#')) {
    const comments = node.descendantsOfType('comment', node.startPosition, colon.endPosition).filter((c) => c && c.endIndex <= end);
    for (const comment of comments.reverse()) {
      header = header.slice(0, comment!.startIndex - start) + header.slice(comment!.endIndex - start);
    }
  }
  // Line breaks inside brackets are layout: `(\n    a,\n)` reads best as `(a,)`.
  return header
    .replace(/([([{])\s*\n\s*/g, '$1')
    .replace(/\s*\n\s*([)\]}])/g, '$1')
    .replace(/\s+/g, ' ')
    .trim();
}

function lineEnd(text: string, from: number): number {
  const end = text.indexOf('\n', from);
  return end === -1 ? text.length : end;
}

/** First non-empty line of the docstring of a def/class body, if its first statement is a string. */
export function docstringOf(body: SyntaxNode, text: string): string | undefined {
  let first = body.firstNamedChild;
  while (first && first.type === 'comment') first = first.nextNamedSibling;
  if (!first || first.type !== 'expression_statement') return undefined;
  const expression = first.firstNamedChild;
  const literal = expression?.type === 'concatenated_string' ? expression.firstNamedChild : expression;
  if (!literal || literal.type !== 'string') return undefined;
  return firstDocstringLine(text.slice(literal.startIndex, literal.endIndex));
}

/** The first non-blank line inside a string literal; bytes and f-strings are not docstrings. */
export function firstDocstringLine(literal: string): string | undefined {
  const open = /^[rRuU]?("""|'''|"|')/.exec(literal);
  if (!open) return undefined;
  const quote = open[1]!;
  let inner = literal.slice(open[0].length);
  if (inner.endsWith(quote)) inner = inner.slice(0, -quote.length);
  for (const line of inner.split('\n')) {
    const trimmed = line.trim();
    if (trimmed) return trimmed;
  }
  return undefined;
}
