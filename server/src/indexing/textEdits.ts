/**
 * LSP incremental-sync edits applied to a buffer, with the matching tree-sitter edit so the old
 * tree can be reused for an incremental reparse. Editors and plugins do send ranges past the
 * end of a line or document, and occasionally reversed ones: those are clamped, never thrown.
 * Positions are UTF-16 code units, which is what JS strings, LSP and web-tree-sitter all use.
 */
import { treeEdit, type Edit, type Point } from '../languages/syntaxTree.js';

/** An LSP position: 0-based line and UTF-16 character. */
export interface LspPosition {
  line: number;
  character: number;
}

/** One `TextDocumentContentChangeEvent`: a ranged replacement, or the whole text when `range` is absent. */
export interface DocumentEdit {
  range?: { start: LspPosition; end: LspPosition };
  text: string;
}

/** The buffer after one edit and, for a ranged edit, the tree edit describing it. */
export interface AppliedEdit {
  text: string;
  /** Undefined for a full replacement: the old tree is no use then. */
  treeEdit?: Edit;
}

/** Apply one edit; out-of-range positions are clamped and a reversed range is swapped. */
export function applyDocumentEdit(text: string, edit: DocumentEdit): AppliedEdit {
  if (!edit.range) return { text: edit.text };
  let start = clampedOffset(text, edit.range.start);
  let end = clampedOffset(text, edit.range.end);
  if (end < start) [start, end] = [end, start];
  const next = text.slice(0, start) + edit.text + text.slice(end);
  const startPosition = pointAt(text, start);
  return {
    text: next,
    treeEdit: treeEdit(
      start, end, start + edit.text.length,
      startPosition, pointAt(text, end), advance(startPosition, edit.text),
    ),
  };
}

/** A document after a list of edits: its text and lines, and the tree edit of each edit in order. */
export interface DocumentChange {
  text: string;
  /** `splitLines(text)`, spliced from the lines before (see {@link spliceLines}). */
  lines: string[];
  /** One per edit; undefined for a full replacement, after which the old tree is no use. */
  treeEdits: (Edit | undefined)[];
}

/**
 * Apply edits in order to a document's text and lines. The server applies each editor edit once,
 * here, and hands the result to whoever keeps derived state (the index's tree and chunks).
 */
export function applyEdits(before: { text: string; lines: readonly string[] }, edits: readonly DocumentEdit[]): DocumentChange {
  let { text } = before;
  let lines = before.lines as string[];
  const treeEdits: (Edit | undefined)[] = [];
  for (const edit of edits) {
    const applied = applyDocumentEdit(text, edit);
    text = applied.text;
    lines = applied.treeEdit ? spliceLines(lines, text, applied.treeEdit) : splitLines(text);
    treeEdits.push(applied.treeEdit);
  }
  return { text, lines, treeEdits };
}

/** Offset of an LSP position: a line past the end means the end; a character past the line means its end. */
export function clampedOffset(text: string, position: LspPosition): number {
  const line = Math.max(0, Math.floor(position.line) || 0);
  let lineStart = 0;
  for (let i = 0; i < line; i++) {
    const newline = text.indexOf('\n', lineStart);
    if (newline === -1) return text.length;
    lineStart = newline + 1;
  }
  let lineEnd = text.indexOf('\n', lineStart);
  if (lineEnd === -1) lineEnd = text.length;
  // A position never lands between the \r and \n of a CRLF.
  if (lineEnd > lineStart && text.charCodeAt(lineEnd - 1) === 13) lineEnd--;
  const character = Math.max(0, Math.floor(position.character) || 0);
  return Math.min(lineStart + character, lineEnd);
}

/** Row/column (UTF-16) of an offset. */
export function pointAt(text: string, offset: number): Point {
  let row = 0;
  let lineStart = 0;
  for (let newline = text.indexOf('\n'); newline !== -1 && newline < offset; newline = text.indexOf('\n', newline + 1)) {
    row++;
    lineStart = newline + 1;
  }
  return { row, column: offset - lineStart };
}

/** The point reached after inserting `inserted` at `start`. */
function advance(start: Point, inserted: string): Point {
  const lastNewline = inserted.lastIndexOf('\n');
  if (lastNewline === -1) return { row: start.row, column: start.column + inserted.length };
  let rows = 0;
  for (let i = inserted.indexOf('\n'); i !== -1; i = inserted.indexOf('\n', i + 1)) rows++;
  return { row: start.row + rows, column: inserted.length - lastNewline - 1 };
}

/** Line breaks (`\n`) in `text`: the lines a text spans, less one. */
export function countLineBreaks(text: string): number {
  let count = 0;
  for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) count++;
  return count;
}

/**
 * Lines without terminators. Only `\n` ends a line (as for tree-sitter rows and LSP positions);
 * the `\r` of a CRLF ending is stripped, so line numbers agree across all three.
 */
export function splitLines(text: string): string[] {
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.endsWith('\r')) lines[i] = line.slice(0, -1);
  }
  return lines;
}

/**
 * `splitLines` of the text after an edit, from the lines before it: only the lines the edit
 * touched are split again, the others are the same strings (an edit then allocates little).
 */
export function spliceLines(lines: readonly string[], newText: string, edit: Edit): string[] {
  const firstRow = edit.startPosition.row;
  const lineStart = edit.startIndex - edit.startPosition.column;
  let end = newText.indexOf('\n', edit.newEndIndex);
  if (end === -1) end = newText.length;
  const touched = splitLines(newText.slice(lineStart, end));
  const result = lines.slice(0, firstRow);
  for (const line of touched) result.push(line);
  for (let i = edit.oldEndPosition.row + 1; i < lines.length; i++) result.push(lines[i]!);
  return result;
}
