/**
 * Where a user was before jumping to a task's cursor within its file (issue 19's "a jump to
 * another function in the same file"): the last line of the function before the cursor's, else
 * the header line of the one after it. Functions are what the server's symbol extraction finds in
 * the file (functions and methods, in any registered language); undefined where the file has no
 * other function, or no registered language reads it.
 */
import { createParserSet, languageOfPath, type ParserSet } from '../../../server/src/languages/registry.js';
import { extractSymbols } from '../../../server/src/indexing/symbols.js';
import type { BenchTask, Position } from '../tasks/types.js';

/** A function's lines: its first (decorators included), its header, and the one after its last. */
interface FunctionLines {
  start: number;
  header: number;
  end: number;
}

let parsers: Promise<ParserSet> | undefined;

/** The position the user jumps from, in the buffer the server sees (prefix + suffix). */
export async function jumpOrigin(task: Pick<BenchTask, 'prefix' | 'suffix' | 'cursor' | 'relPath'>): Promise<Position | undefined> {
  const text = task.prefix + task.suffix;
  const functions = await functionsOf(text, task.relPath);
  const line = task.cursor.line;
  // The function the cursor is in or after (the last whose header is at or above it).
  const enclosing = functions.filter((f) => f.header <= line).at(-1);
  const before = enclosing && functions.filter((f) => f.end <= enclosing.start).sort((a, b) => a.end - b.end).at(-1);
  const lines = text.split('\n');
  if (before) return endOf(lines, before.end - 1);
  const after = functions.find((f) => f.header > line && (!enclosing || f.start >= enclosing.end));
  return after ? endOf(lines, after.header) : undefined;
}

async function functionsOf(text: string, relPath: string): Promise<FunctionLines[]> {
  const language = languageOfPath(relPath);
  if (!language) return [];
  parsers ??= createParserSet([]);
  const set = await parsers;
  await set.load([relPath]);
  const tree = set.forPath(relPath)!.parse(text);
  try {
    return extractSymbols(tree, text, relPath, language).sites
      .filter((site) => site.definition.kind !== 'class')
      .map((site) => ({ start: site.definition.startLine, header: site.headerLine, end: site.definition.endLine }));
  } finally {
    tree.delete();
  }
}

function endOf(lines: readonly string[], line: number): Position {
  return { line, character: lines[line]?.length ?? 0 };
}
