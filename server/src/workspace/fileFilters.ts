/**
 * Content checks that decide whether a source file is worth indexing, as pure functions so the
 * bench and a corpus builder apply exactly the same rules as the server.
 */
/** Why a file was not indexed; logged once per file. */
export type SkipReason =
  | 'ignored-by-gitignore'
  | 'vendored-or-generated-directory'
  | 'too-large'
  | 'binary'
  | 'minified'
  | 'deeply-nested'
  | 'unreadable'
  | 'outside-workspace'
  | 'symlink-loop'
  | 'not-source'
  /** The server failed on the file (a bug, logged with the error); the rest of the index goes on. */
  | 'index-failed';

/** Thresholds for {@link checkFileBytes} / {@link checkText}. */
export interface ContentLimits {
  /** Files larger than this many bytes are skipped ('too-large'). */
  maxBytes: number;
  /** Any line longer than this (trailing whitespace trimmed) marks the file minified. */
  maxLineLength: number;
  /** A mean line length above this (trailing whitespace trimmed) marks the file minified. */
  maxMeanLineLength: number;
  /** Brackets nested deeper than this mark the file generated ('deeply-nested'). */
  maxBracketDepth: number;
}

/**
 * 1 MiB, 300 and 120: generated tables and minified bundles, not code anyone completes against.
 * 256 brackets deep is clang's default limit (`-fbracket-depth`), and Python's parser stops at 200
 * parentheses: no written code nests that deep (of 19,822 source files of Debian packages, the
 * stdlib and node_modules, none that is not minified). The limit also bounds the index's work
 * per file, since tree-sitter finds a node's parent by walking down from the root: a file nested
 * 20,000 deep cost up to minutes of the server's only thread.
 */
export const DEFAULT_CONTENT_LIMITS: Readonly<ContentLimits> = {
  maxBytes: 1024 * 1024,
  maxLineLength: 300,
  maxMeanLineLength: 120,
  maxBracketDepth: 256,
};

/** Outcome of a content check: decoded text, or why the file is skipped. */
export type ContentCheck =
  | { kind: 'ok'; text: string }
  | { kind: 'skip'; reason: Extract<SkipReason, 'too-large' | 'binary' | 'minified' | 'deeply-nested'>; detail: string };

/** Whether a file of `size` bytes is over the limit. */
export function isTooLarge(size: number, limits: ContentLimits = DEFAULT_CONTENT_LIMITS): boolean {
  return size > limits.maxBytes;
}

/** Git's heuristic: a NUL byte means binary. */
export function isBinary(bytes: Uint8Array): boolean {
  return bytes.indexOf(0) !== -1;
}

const utf8 = new TextDecoder('utf-8', { fatal: false });

/** Decode UTF-8, replacing invalid sequences with U+FFFD (a leading BOM is dropped, as editors do). */
export function decodeUtf8(bytes: Uint8Array): string {
  return utf8.decode(bytes);
}

/** Line statistics with trailing whitespace trimmed; a final newline does not start another line. */
export function lineLengthStats(text: string): { lines: number; longest: number; mean: number } {
  let lines = 0;
  let total = 0;
  let longest = 0;
  let start = 0;
  while (start < text.length) {
    let end = text.indexOf('\n', start);
    if (end === -1) end = text.length;
    let trimmedEnd = end;
    while (trimmedEnd > start && isTrailingSpace(text.charCodeAt(trimmedEnd - 1))) trimmedEnd--;
    const length = trimmedEnd - start;
    lines++;
    total += length;
    if (length > longest) longest = length;
    start = end + 1;
  }
  return { lines, longest, mean: lines === 0 ? 0 : total / lines };
}

function isTrailingSpace(code: number): boolean {
  return code === 32 || code === 9 || code === 13 || code === 11 || code === 12;
}

/** Minified or generated: one very long line, or long lines on average. */
export function isMinified(text: string, limits: ContentLimits = DEFAULT_CONTENT_LIMITS): boolean {
  return checkMinified(text, limits).kind === 'skip';
}

/** All checks on raw file bytes, in cost order; decodes when the file passes. */
export function checkFileBytes(bytes: Uint8Array, limits: ContentLimits = DEFAULT_CONTENT_LIMITS): ContentCheck {
  if (isTooLarge(bytes.length, limits)) {
    return { kind: 'skip', reason: 'too-large', detail: `${bytes.length} bytes > ${limits.maxBytes}` };
  }
  if (isBinary(bytes)) return { kind: 'skip', reason: 'binary', detail: 'contains a NUL byte' };
  return checkShape(decodeUtf8(bytes), limits);
}

/**
 * The same checks on text that is already decoded (an editor buffer), so an open document is
 * held to the rules its saved file would be.
 */
export function checkText(text: string, limits: ContentLimits = DEFAULT_CONTENT_LIMITS): ContentCheck {
  // UTF-16 length is a cheap lower bound on UTF-8 size; only measure exactly near the limit.
  if (text.length > limits.maxBytes / 4 && isTooLarge(Buffer.byteLength(text, 'utf8'), limits)) {
    return { kind: 'skip', reason: 'too-large', detail: `over ${limits.maxBytes} bytes` };
  }
  if (text.includes('\0')) return { kind: 'skip', reason: 'binary', detail: 'contains a NUL character' };
  return checkShape(text, limits);
}

/**
 * The deepest nesting of (), [] and {} in `text`. Brackets inside a double-quoted string on one
 * line do not count (every language served quotes strings so, and escape-sequence tables such as
 * `"\x1b[A"` would otherwise add up); a closer with no opener counts nothing. Comments and other
 * strings still count: the measure need not be exact, only never far below the tree's nesting.
 */
export function bracketDepth(text: string): number {
  let depth = 0;
  let deepest = 0;
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (quoted) {
      if (code === 92) i++; // A backslash escapes the next character.
      else if (code === 34 || code === 10) quoted = false;
    } else if (code === 34) {
      quoted = true;
    } else if (code === 40 || code === 91 || code === 123) {
      if (++depth > deepest) deepest = depth;
    } else if ((code === 41 || code === 93 || code === 125) && depth > 0) {
      depth--;
    }
  }
  return deepest;
}

/** Minified, then nested past written code. */
function checkShape(text: string, limits: ContentLimits): ContentCheck {
  const minified = checkMinified(text, limits);
  if (minified.kind === 'skip') return minified;
  const depth = bracketDepth(text);
  if (depth > limits.maxBracketDepth) {
    return { kind: 'skip', reason: 'deeply-nested', detail: `brackets nested ${depth} deep > ${limits.maxBracketDepth}` };
  }
  return minified;
}

function checkMinified(text: string, limits: ContentLimits): ContentCheck {
  const stats = lineLengthStats(text);
  if (stats.longest > limits.maxLineLength) {
    return { kind: 'skip', reason: 'minified', detail: `a line of ${stats.longest} chars > ${limits.maxLineLength}` };
  }
  if (stats.mean > limits.maxMeanLineLength) {
    return { kind: 'skip', reason: 'minified', detail: `mean line length ${stats.mean.toFixed(0)} > ${limits.maxMeanLineLength}` };
  }
  return { kind: 'ok', text };
}
