/**
 * A single-line completion must not close what the code after the cursor already closes.
 *
 * Small models write whole calls: at `raise InvalidZipRepository(` with the arguments on the
 * next lines, they write `InvalidZipRepository(msg)`, and accepting it leaves the suffix's
 * arguments and `)` dangling. The bracket depth the completion must add is known from the
 * buffer: the closers the rest of the statement has unmatched, minus the openers the prefix
 * leaves open. A completion that closes more than that is cut:
 *   - when the suffix closes a bracket the completion opens (the call continues on the next
 *     lines), right after the completion's opener of that bracket: the suffix has the arguments;
 *   - otherwise just before the first closer the buffer already has (`print(x|)`).
 * Brackets inside strings and comments do not count (a small Python lexer, below). Nothing is
 * changed when the cursor is inside a string or comment, the completion ends inside one, or the
 * buffer's brackets are too far off to trust.
 */

import { indentOf } from './cursor.js';

/** Beyond this many unmatched brackets the buffer is mid-edit elsewhere: leave the completion. */
const MAX_REQUIRED_DEPTH = 3;

const CLOSERS = ')]}';

/** What the lexer is inside at the end of a text. */
type LexState = { kind: 'code' } | { kind: 'comment' } | { kind: 'string'; quote: string };

/** Running bracket depth over code characters, with where each bracket sits. */
interface BracketScan {
  /** Depth change at each bracket, in text order: +1 opener, -1 closer, with its offset. */
  brackets: Array<{ offset: number; delta: 1 | -1 }>;
  end: LexState;
}

export function balanceWithSuffix(completion: string, prefix: string, suffix: string): string {
  // Without a closer the completion closes nothing: the common case costs no scan.
  if (!/[)\]}]/.test(completion)) return completion;
  const open = openBrackets(prefix.slice(topLevelStart(prefix)));
  if (open === undefined) return completion;
  const closing = unmatchedClosers(statementRest(prefix, suffix));
  const required = closing.count - open;
  if (Math.abs(required) > MAX_REQUIRED_DEPTH) return completion;
  const scan = scanBrackets(completion);
  if (scan.end.kind !== 'code') return completion;
  const net = scan.brackets.reduce((sum, b) => sum + b.delta, 0);
  if (net >= required) return completion;
  const cut = cutOffset(scan, required, closing.firstOnCursorLine);
  return cut === undefined ? completion : completion.slice(0, cut).trimEnd();
}

/** Where to cut a completion that closes too much (see the header); undefined: nowhere. */
function cutOffset(scan: BracketScan, required: number, closerOnCursorLine: boolean): number | undefined {
  let depth = 0;
  if (required > 0 && !closerOnCursorLine) {
    for (const { offset, delta } of scan.brackets) {
      depth += delta;
      if (delta === 1 && depth === required) return offset + 1;
    }
    depth = 0;
  }
  for (const { offset, delta } of scan.brackets) {
    depth += delta;
    if (delta === -1 && depth < required) return offset;
  }
  return undefined;
}

/**
 * Where the last top-level `def`, `class`, decorator or import starts: outside any bracket or
 * string in any Python file one would complete in, so the prefix's scan can begin there and
 * costs the current top-level statement, not the file.
 */
function topLevelStart(prefix: string): number {
  // Line by line back from the cursor's line: the cost is the distance to that line.
  for (let newline = prefix.lastIndexOf('\n'); newline > 0; newline = prefix.lastIndexOf('\n', newline - 1)) {
    if (TOP_LEVEL.some((keyword) => prefix.startsWith(keyword, newline + 1))) return newline + 1;
  }
  return 0;
}

const TOP_LEVEL = ['def ', 'async def ', 'class ', '@', 'import ', 'from '];

/** Openers the prefix leaves unclosed; undefined when the cursor is in a string or comment. */
function openBrackets(prefix: string): number | undefined {
  const scan = scanBrackets(prefix);
  if (scan.end.kind !== 'code') return undefined;
  let depth = 0;
  // A stray closer (code mid-edit above) cannot close anything later: depth stays at zero.
  for (const { delta } of scan.brackets) depth = Math.max(0, depth + delta);
  return depth;
}

/**
 * The rest of the cursor's statement: the cursor line's remainder and the lines after it that
 * continue it (indented deeper, blank, or a closing line such as `)` that ends it).
 */
function statementRest(prefix: string, suffix: string): string {
  const cursorLine = prefix.slice(prefix.lastIndexOf('\n') + 1);
  const indent = indentOf(cursorLine);
  // Line by line, so a cursor near the top of a long file does not split all of it.
  for (let newline = suffix.indexOf('\n'); newline >= 0;) {
    const next = suffix.indexOf('\n', newline + 1);
    const lineEnd = next < 0 ? suffix.length : next;
    const line = suffix.slice(newline + 1, lineEnd);
    if (line.trim() !== '' && indentOf(line) <= indent) {
      // A closing line (`)`) ends the statement and belongs to it; any other starts the next one.
      return suffix.slice(0, CLOSERS.includes(line.trimStart()[0]!) ? lineEnd : newline);
    }
    newline = next;
  }
  return suffix;
}

/** Closers of `text` with no opener before them in it, and whether the first is on its first line. */
function unmatchedClosers(text: string): { count: number; firstOnCursorLine: boolean } {
  const scan = scanBrackets(text);
  const firstNewline = text.indexOf('\n');
  let depth = 0;
  let count = 0;
  let firstOffset: number | undefined;
  for (const { offset, delta } of scan.brackets) {
    depth += delta;
    if (depth < 0) {
      count++;
      depth = 0;
      firstOffset ??= offset;
    }
  }
  return { count, firstOnCursorLine: firstOffset !== undefined && (firstNewline < 0 || firstOffset < firstNewline) };
}

/**
 * Brackets outside strings and comments. Python's string forms: '…', "…", triple quotes;
 * a backslash escapes the next character (raw strings too, as far as ending the string goes);
 * a one-quote string ends at the end of its line even if unterminated, so an odd quote does
 * not swallow the file.
 */
function scanBrackets(text: string): BracketScan {
  const brackets: BracketScan['brackets'] = [];
  let state: LexState = { kind: 'code' };
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (state.kind === 'comment') {
      if (c === NEWLINE) state = { kind: 'code' };
    } else if (state.kind === 'string') {
      if (c === BACKSLASH) i++;
      else if (c === NEWLINE && state.quote.length === 1) state = { kind: 'code' };
      else if (c === state.quote.charCodeAt(0) && text.startsWith(state.quote, i)) {
        i += state.quote.length - 1;
        state = { kind: 'code' };
      }
    } else if (c === HASH) {
      state = { kind: 'comment' };
    } else if (c === DOUBLE_QUOTE || c === SINGLE_QUOTE) {
      const mark = text[i]!;
      const quote = text.startsWith(mark.repeat(3), i) ? mark.repeat(3) : mark;
      i += quote.length - 1;
      state = { kind: 'string', quote };
    } else if (c === 40 || c === 91 || c === 123) { // ( [ {
      brackets.push({ offset: i, delta: 1 });
    } else if (c === 41 || c === 93 || c === 125) { // ) ] }
      brackets.push({ offset: i, delta: -1 });
    }
  }
  return { brackets, end: state };
}

const NEWLINE = 10;
const BACKSLASH = 92;
const HASH = 35;
const DOUBLE_QUOTE = 34;
const SINGLE_QUOTE = 39;
