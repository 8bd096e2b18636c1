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
 * Brackets inside strings and comments do not count (a small lexer over the language's string
 * and comment forms, below). Nothing is
 * changed when the cursor is inside a string or comment, the completion ends inside one, or the
 * buffer's brackets are too far off to trust.
 */

import type { EditingRules, LexicalRules } from '../languages/language.js';
import { indentOf } from './cursor.js';

/** Beyond this many unmatched brackets the buffer is mid-edit elsewhere: leave the completion. */
const MAX_REQUIRED_DEPTH = 3;

const CLOSERS = ')]}';

/** What the lexer is inside at the end of a text. */
type LexState =
  | { kind: 'code' }
  | { kind: 'comment'; close?: string }
  | { kind: 'string'; quote: string; multiLine: boolean; raw: boolean };

/** Running bracket depth over code characters, with where each bracket sits. */
interface BracketScan {
  /** Depth change at each bracket, in text order: +1 opener, -1 closer, with its offset. */
  brackets: Array<{ offset: number; delta: 1 | -1 }>;
  end: LexState;
}

export function balanceWithSuffix(completion: string, prefix: string, suffix: string, rules: EditingRules): string {
  // Without a closer the completion closes nothing: the common case costs no scan.
  if (!/[)\]}]/.test(completion)) return completion;
  const open = openBrackets(prefix.slice(topLevelStart(prefix, rules.topLevelStarts)), rules.lexical);
  if (open === undefined) return completion;
  const closing = unmatchedClosers(statementRest(prefix, suffix), rules.lexical);
  const required = closing.count - open;
  if (Math.abs(required) > MAX_REQUIRED_DEPTH) return completion;
  const scan = scanBrackets(completion, rules.lexical);
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
 * Where the last line that is surely at the top level starts (Python's `def`, Go's `func`, the
 * language's `topLevelStarts` at column 0): outside any bracket or string in any file one would
 * complete in, so the prefix's scan can begin there and costs the current top-level statement,
 * not the file.
 */
function topLevelStart(prefix: string, starts: readonly string[]): number {
  // Line by line back from the cursor's line: the cost is the distance to that line.
  for (let newline = prefix.lastIndexOf('\n'); newline > 0; newline = prefix.lastIndexOf('\n', newline - 1)) {
    if (starts.some((keyword) => prefix.startsWith(keyword, newline + 1))) return newline + 1;
  }
  return 0;
}

/** Openers the prefix leaves unclosed; undefined when the cursor is in a string or comment. */
function openBrackets(prefix: string, lexical: LexicalRules): number | undefined {
  const scan = scanBrackets(prefix, lexical);
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
function unmatchedClosers(text: string, lexical: LexicalRules): { count: number; firstOnCursorLine: boolean } {
  const scan = scanBrackets(text, lexical);
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
 * Brackets outside strings and comments, by the language's lexical rules: a backslash escapes the
 * next character in a string (raw strings too, as far as ending the string goes, except the
 * language's `rawQuotes` such as Go's backticks); a string whose quote may not span lines ends at
 * the end of its line even if unterminated, so an odd quote does not swallow the file.
 */
function scanBrackets(text: string, lexical: LexicalRules): BracketScan {
  const brackets: BracketScan['brackets'] = [];
  let state: LexState = { kind: 'code' };
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (state.kind === 'comment') {
      if (state.close === undefined ? c === NEWLINE : text.startsWith(state.close, i)) {
        i += (state.close?.length ?? 1) - 1;
        state = { kind: 'code' };
      }
    } else if (state.kind === 'string') {
      if (c === BACKSLASH && !state.raw) i++;
      else if (c === NEWLINE && !state.multiLine) state = { kind: 'code' };
      else if (text.startsWith(state.quote, i)) {
        i += state.quote.length - 1;
        state = { kind: 'code' };
      }
    } else if (c === 40 || c === 91 || c === 123) { // ( [ {
      brackets.push({ offset: i, delta: 1 });
    } else if (c === 41 || c === 93 || c === 125) { // ) ] }
      brackets.push({ offset: i, delta: -1 });
    } else {
      const opened = openingAt(text, i, lexical);
      if (opened) {
        i += opened.length - 1;
        state = opened.state;
      }
    }
  }
  return { brackets, end: state };
}

/** A comment or string that starts at `i`, with the length of its opening mark. */
function openingAt(text: string, i: number, lexical: LexicalRules): { state: LexState; length: number } | undefined {
  if (lexical.lineComments.some((mark) => text.startsWith(mark, i))) return { state: { kind: 'comment' }, length: 1 };
  const block = lexical.blockComment;
  if (block && text.startsWith(block.open, i)) return { state: { kind: 'comment', close: block.close }, length: block.open.length };
  // Quotes are listed longest first, so `"""` wins over `"`.
  const quote = lexical.quotes.find((q) => text.startsWith(q, i));
  if (quote === undefined) return undefined;
  const state: LexState = { kind: 'string', quote, multiLine: lexical.multiLineQuotes.includes(quote), raw: lexical.rawQuotes?.includes(quote) ?? false };
  return { state, length: quote.length };
}

const NEWLINE = 10;
const BACKSLASH = 92;
