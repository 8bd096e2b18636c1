/**
 * Where a user was before jumping to a task's cursor within its file (issue 19's "a jump to
 * another function in the same file"): the end of the function before the cursor's, else the
 * first line of the one after it. Python's `def` lines mark functions; undefined where the file
 * has no other function.
 */
import type { BenchTask, Position } from '../tasks/types.js';

const DEF_LINE = /^(\s*)(async\s+)?def\s/;

/** The position the user jumps from, in the buffer the server sees (prefix + suffix). */
export function jumpOrigin(task: Pick<BenchTask, 'prefix' | 'suffix' | 'cursor'>): Position | undefined {
  const lines = (task.prefix + task.suffix).split('\n');
  const cursorLine = task.cursor.line;
  const enclosing = lastDefAtOrBefore(lines, cursorLine, Number.POSITIVE_INFINITY);
  const indent = enclosing === undefined ? Number.POSITIVE_INFINITY : indentOf(lines[enclosing]!);
  const previous = enclosing === undefined ? undefined : lastDefAtOrBefore(lines, enclosing - 1, indent);
  if (previous !== undefined) {
    // The previous function's last line: the last code line above the cursor's function.
    for (let line = enclosing! - 1; line > previous; line--) {
      const text = lines[line]!.trim();
      if (text && !text.startsWith('@') && !text.startsWith('#')) return { line, character: lines[line]!.length };
    }
  }
  for (let line = cursorLine + 1; line < lines.length; line++) {
    const match = DEF_LINE.exec(lines[line]!);
    if (match && match[1]!.length <= indent) return { line, character: lines[line]!.length };
  }
  return undefined;
}

function lastDefAtOrBefore(lines: readonly string[], from: number, maxIndent: number): number | undefined {
  for (let line = from; line >= 0; line--) {
    const match = DEF_LINE.exec(lines[line]!);
    if (match && match[1]!.length <= maxIndent) return line;
  }
  return undefined;
}

function indentOf(line: string): number {
  return line.length - line.trimStart().length;
}
