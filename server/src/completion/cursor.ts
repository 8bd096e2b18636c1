/**
 * Splitting a document at the cursor, and the stop rules that follow from where the cursor is.
 * Prompts always use LF; completions are returned in the document's own line ending.
 */
import { clampedOffset, countLineBreaks } from '../indexing/textEdits.js';

export interface CursorSplit {
  /** Text before the cursor, LF line endings. */
  prefix: string;
  /** Text after the cursor, LF line endings. */
  suffix: string;
  /** 0-based line of the cursor, clamped into the document. */
  line: number;
  usesCrlf: boolean;
}

/**
 * Characters of context considered on each side of the cursor: far more than any token budget
 * (32k tokens) needs, so a 50 MB buffer costs the same per keystroke as a small one.
 */
const PREFIX_CHARS = 400_000;
const SUFFIX_CHARS = 100_000;

/** Split `text` at a (possibly out-of-range) position; the position is clamped. */
export function splitAtCursor(text: string, position: { line: number; character: number }): CursorSplit {
  const offset = clampedOffset(text, position);
  const requestedLine = Math.max(0, Math.floor(position.line) || 0);
  const line = offset === text.length ? countLineBreaks(text) : requestedLine;
  const prefixRaw = offset > PREFIX_CHARS ? dropFirstLine(text.slice(offset - PREFIX_CHARS, offset)) : text.slice(0, offset);
  const suffixRaw = text.slice(offset, offset + SUFFIX_CHARS);
  const usesCrlf = prefixRaw.includes('\r\n') || suffixRaw.includes('\r\n');
  return { prefix: normalizeEol(prefixRaw), suffix: normalizeEol(suffixRaw), line, usesCrlf };
}

/** A window that starts mid-line starts at the next whole line. */
function dropFirstLine(text: string): string {
  return text.slice(text.indexOf('\n') + 1);
}

export function normalizeEol(text: string): string {
  return text.replace(/\r\n?/g, '\n');
}

/**
 * Multi-line completions only where a block is being opened: the cursor line is blank, the
 * previous non-blank line opens a block (the language's rule: Python's `:`, a brace language's
 * `{`) and there is no indented body below yet. Everywhere else a completion finishes the current
 * line (RepoEval line/API tasks; what users expect mid-line).
 */
export function isBlockPosition(split: CursorSplit, opensBlock: (line: string) => boolean): boolean {
  const lines = split.prefix.split('\n');
  const current = lines[lines.length - 1]!;
  const restOfLine = split.suffix.split('\n', 1)[0]!;
  if (current.trim() !== '' || restOfLine.trim() !== '') return false;
  const previous = [...lines.slice(0, -1)].reverse().find((l) => l.trim() !== '');
  if (!previous || !opensBlock(previous)) return false;
  const nextNonBlank = split.suffix.split('\n').slice(1).find((l) => l.trim() !== '');
  return nextNonBlank === undefined || indentOf(nextNonBlank) <= indentOf(previous);
}

/**
 * A block completion: at most `maxLines` lines and, where the language's blocks end with a closer
 * the editor wrote below the cursor (`closesBlocks`), none from the first line back at the
 * opener's indentation on: that line would close the block a second time.
 */
export function blockCompletion(raw: string, split: CursorSplit, maxLines: number, closesBlocks: boolean): string {
  const lines = raw.split('\n').slice(0, maxLines);
  const prefixLines = split.prefix.split('\n');
  const opener = prefixLines.slice(0, -1).reverse().find((line) => line.trim() !== '');
  if (!closesBlocks || opener === undefined) return lines.join('\n');
  // The first line continues the cursor line, whose indentation is in the prefix.
  const cursorIndent = indentOf(prefixLines[prefixLines.length - 1]!);
  const end = lines.findIndex((line, i) => line.trim() !== '' && (i === 0 ? cursorIndent : 0) + indentOf(line) <= indentOf(opener));
  return (end < 0 ? lines : lines.slice(0, end)).join('\n');
}

/**
 * Drop what the suffix already provides: when the completion's last line ends with the
 * text that follows the cursor on its line (closing brackets the editor auto-inserted), cut it.
 */
export function trimSuffixOverlap(completion: string, suffix: string): string {
  const restOfLine = suffix.split('\n', 1)[0]!.trim();
  const trimmed = completion.replace(/\s+$/, '');
  if (restOfLine && trimmed.endsWith(restOfLine)) return trimmed.slice(0, trimmed.length - restOfLine.length);
  return trimmed;
}

/** Leading whitespace of a line, in characters. */
export function indentOf(line: string): number {
  return line.length - line.trimStart().length;
}
