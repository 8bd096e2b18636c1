/**
 * The typing the soak replays: a seeded script of editor actions over real Python files. A
 * "session" opens a file (as a tab), then retypes some of its lines: the line's code is deleted
 * and typed again one character at a time (with the odd typo fixed by a backspace), with a pause
 * before each line as people think between lines. Retyping restores the text, so open buffers do not drift
 * from their files however long the replay runs. At most `maxOpenTabs` files stay open; the
 * oldest is closed first.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { TextDocument } from 'vscode-languageserver-textdocument';
import type { Random } from '../../test/reliability/random.js';

/** A 0-based LSP position. */
export interface Position {
  line: number;
  character: number;
}

/** One editor action; `edit` actions are the edits the soak counts. */
export type TypingAction =
  | { kind: 'open'; uri: string; text: string }
  | { kind: 'close'; uri: string }
  /** An incremental change; `delayMs` is the wait before it (keystroke interval or line pause). */
  | { kind: 'edit'; uri: string; range: { start: Position; end: Position }; text: string; version: number; cursor: Position; delayMs: number };

/** Pace and shape of the typing. */
export interface TypingOptions {
  /** Milliseconds between keystrokes: uniform in [min, max]. */
  keystrokeMs: [number, number];
  /** Pause at the end of a retyped line: uniform in [min, max]. */
  lineEndPauseMs: [number, number];
  /** Lines retyped per visit of a file: uniform in [min, max]. */
  linesPerSession: [number, number];
  maxOpenTabs: number;
  /** Chance per character of a typo, fixed at once with a backspace (two more edits). */
  typoRate: number;
}

/** Typing speed of a quick typist: ~10 characters per second, a pause at each line end. */
export const HUMAN_TYPING: TypingOptions = {
  keystrokeMs: [50, 150], lineEndPauseMs: [300, 1200], linesPerSession: [3, 10], maxOpenTabs: 4, typoRate: 0.03,
};

/** The same script three times faster (for the short CI run). */
export function fasterTyping(options: TypingOptions, factor: number): TypingOptions {
  const scale = ([a, b]: [number, number]): [number, number] => [Math.round(a / factor), Math.round(b / factor)];
  return { ...options, keystrokeMs: scale(options.keystrokeMs), lineEndPauseMs: scale(options.lineEndPauseMs) };
}

/** A line worth retyping: some code, not too long. */
function isRetypable(line: string): boolean {
  const code = line.trim();
  return code.length >= 4 && code.length <= 100 && !line.includes('\t') && !line.includes('\r');
}

/** An endless script of typing actions over `files` (absolute paths). */
export function* typingScript(files: readonly string[], random: Random, options: TypingOptions): Generator<TypingAction> {
  const open = new Map<string, TextDocument>();
  const tabs: string[] = [];
  for (;;) {
    const file = random.pick(files);
    const uri = pathToFileURL(file).href;
    let document = open.get(uri);
    if (!document) {
      const text = readFileSync(file, 'utf8');
      document = TextDocument.create(uri, 'python', 1, text);
      open.set(uri, document);
      tabs.push(uri);
      yield { kind: 'open', uri, text };
      while (tabs.length > options.maxOpenTabs) {
        const oldest = tabs.shift()!;
        open.delete(oldest);
        yield { kind: 'close', uri: oldest };
      }
    }
    const lines = document.getText().split('\n');
    const candidates = lines.map((line, index) => (isRetypable(line) ? index : -1)).filter((index) => index >= 0);
    if (candidates.length === 0) continue;
    for (let n = random.between(...options.linesPerSession); n > 0; n--) {
      yield* retypeLine(document, random.pick(candidates), random, options);
    }
  }
}

/** Deletes a line's code and types it again, keystroke by keystroke. */
function* retypeLine(document: TextDocument, line: number, random: Random, options: TypingOptions): Generator<TypingAction> {
  const text = document.getText().split('\n')[line]!;
  const indent = text.length - text.trimStart().length;
  const code = text.slice(indent).trimEnd();
  const uri = document.uri;
  const edit = (start: number, end: number, inserted: string, delayMs: number): TypingAction => {
    const range = { start: { line, character: start }, end: { line, character: end } };
    TextDocument.update(document, [{ range, text: inserted }], document.version + 1);
    return { kind: 'edit', uri, range, text: inserted, version: document.version, cursor: { line, character: start + inserted.length }, delayMs };
  };
  const keystroke = (): number => random.between(...options.keystrokeMs);
  // The pause before a line stands for the thinking at the end of the previous one.
  yield edit(indent, indent + code.length, '', random.between(...options.lineEndPauseMs));
  let column = indent;
  for (const char of code) {
    if (random.chance(options.typoRate)) {
      yield edit(column, column, random.pick(['x', 'e', 's', ';']), keystroke());
      yield edit(column, column + 1, '', keystroke());
    }
    yield edit(column, column, char, keystroke());
    column += char.length;
  }
}

/** `.py` files under `dir` worth typing in: 20+ lines and at most 200 KB, sorted. */
export function typableFiles(dir: string): string[] {
  const found: string[] = [];
  const walk = (current: string): void => {
    for (const entry of readdirSync(current, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const full = path.join(current, entry.name);
      if (entry.isDirectory() && !entry.name.startsWith('.') && entry.name !== 'test' && entry.name !== 'tests') walk(full);
      else if (entry.isFile() && entry.name.endsWith('.py')) {
        const size = statSync(full).size;
        if (size >= 600 && size <= 200_000) found.push(full);
      }
    }
  };
  walk(dir);
  return found;
}
