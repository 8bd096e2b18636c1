/**
 * Cuts a file's text at a task span: prefix (before the cursor), target, suffix (after the
 * target). Positions are UTF-16 code units on lines split at '\n'; a CRLF line's '\r' stays in
 * the suffix, never in the target.
 */
import type { Position } from './types.js';

/** The three parts of a file around a target; `prefix + target + suffix` is the file. */
export interface CutText {
  prefix: string;
  target: string;
  suffix: string;
}

/** Offset of each line's first character. */
export function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  return starts;
}

/** The text offset of `position`; throws when the position is outside the text (a builder bug). */
export function offsetOf(text: string, starts: readonly number[], position: Position): number {
  const lineStart = starts[position.line];
  if (lineStart === undefined) throw new RangeError(`line ${position.line} is outside the text (${starts.length} lines)`);
  const nextStart = starts[position.line + 1] ?? text.length + 1;
  const offset = lineStart + position.character;
  if (offset > nextStart - 1) throw new RangeError(`character ${position.character} is past the end of line ${position.line}`);
  return offset;
}

/** Cut `text` into prefix / target / suffix at [start, end). */
export function cutAt(text: string, start: Position, end: Position): CutText {
  const starts = lineStarts(text);
  let from = offsetOf(text, starts, start);
  let to = offsetOf(text, starts, end);
  if (text[to - 1] === '\r' && to > from) to--;
  if (to < from) [from, to] = [to, from];
  return { prefix: text.slice(0, from), target: text.slice(from, to), suffix: text.slice(to) };
}
