/**
 * Completion targets, sampled like RepoEval's three task kinds (RepoShapley §4.1):
 *   line   the rest of a line, cursor after its indentation
 *   api    the rest of a line from a call that resolves, through the file's imports, to a function
 *          or class defined in another file of the same repository, cursor at the start of the
 *          call: the bench's RepoEval API-level rule (bench/src/tasks/apiTasks.ts), the
 *          cross-file evidence case. (Until 2026-12-05 any call of a name that some other file
 *          defined counted, so `str(...)` was an API target wherever a module defined `str`:
 *          35 % of the API records labeled by then resolve to no cross-file definition.)
 *   block  a whole body, cursor on its first statement after the indentation, from two sources
 *          drawn half and half: function bodies of 3–15 lines after the docstring, exactly the
 *          bench's RepoEval function-level rule (bench/src/tasks/blockTasks.ts), and the bodies of
 *          other compound statements right after their ':' line, which is what the server treats
 *          as a block position in auto mode (completion/cursor.ts)
 * A target is a span [start, end) of the file text; the document the model sees is the text
 * without it, exactly what an editor buffer holds before the user types it.
 */
import { apiSpans } from '../../bench/src/tasks/apiTasks.js';
import { blockSpans } from '../../bench/src/tasks/blockTasks.js';
import { proseRows } from '../../bench/src/tasks/lineTasks.js';
import type { SyntaxParser, Tree } from '../../server/src/languages/syntaxTree.js';
import type { FileIndex, IndexView } from '../../server/src/indexing/types.js';
import { sample, seededRandom, type Random } from './random.js';

export type TargetKind = 'line' | 'api' | 'block';

export interface Target {
  kind: TargetKind;
  relPath: string;
  /** 0-based line and UTF-16 column of the cursor (= start). */
  line: number;
  character: number;
  /** Offsets into the file text. */
  start: number;
  end: number;
  text: string;
  /** For block targets: a function body (the bench's rule) or another compound statement's body. */
  body?: BlockSource;
}

export type BlockSource = 'function' | 'statement';

/** Most lines of a block target (the server's MAX_BLOCK_LINES cut). */
export const MAX_BLOCK_LINES = 15;

/**
 * Every target of each kind in one file. Files with CR line endings give none (prompts are LF).
 * `parser` finds the prose lines (docstrings, multi-line strings) line targets leave out, by the
 * bench's own rule (bench/src/tasks/lineTasks.ts).
 */
export function findTargets(file: FileIndex, view: IndexView, parser: SyntaxParser): Record<TargetKind, Target[]> {
  const found: Record<TargetKind, Target[]> = { line: [], api: [], block: [] };
  if (file.text.includes('\r')) return found;
  const starts = lineStarts(file.lines);
  const make = (kind: TargetKind, line: number, character: number, endLine: number): Target => {
    const start = starts[line]! + character;
    const end = starts[endLine]! + file.lines[endLine]!.length;
    return { kind, relPath: file.relPath, line, character, start, end, text: file.text.slice(start, end) };
  };
  const tree = parser.parse(file.text);
  try {
    const prose = proseRows(tree);
    file.lines.forEach((text, line) => {
      const body = text.slice(indentOf(text));
      // Docstring and other multi-line string lines are prose, not code to complete: a model fed
      // them as targets learns to open strings (a fine-tune on such targets collapsed to `"""`).
      if (body.trim().length >= 3 && !body.startsWith('#') && !prose.has(line)) found.line.push(make('line', line, indentOf(text), line));
    });
    found.block = blockTargets(file, tree, make);
    found.api = apiSpans(file, tree, view).map((span) => make('api', span.start.line, span.start.character, span.start.line));
  } finally {
    tree.delete();
  }
  return found;
}

/**
 * Function bodies as the bench cuts them, then the other compound-statement bodies (a function
 * without a docstring is found by both rules and kept once, as a function body). Without the
 * function rule no block target ever started after a docstring, where the bench's function
 * bodies with a docstring start, and the model learned to end a block after one line.
 */
function blockTargets(
  file: FileIndex, tree: Tree, make: (kind: TargetKind, line: number, character: number, endLine: number) => Target,
): Target[] {
  const functions = blockSpans(file, tree).map((span) => ({
    ...make('block', span.start.line, span.start.character, span.end.line), body: 'function' as const,
  }));
  const taken = new Set(functions.map((t) => t.start));
  const statements: Target[] = [];
  file.lines.forEach((_, line) => {
    const end = blockBodyEnd(file.lines, line);
    if (end === undefined) return;
    const target: Target = { ...make('block', line + 1, indentOf(file.lines[line + 1]!), end), body: 'statement' };
    if (!taken.has(target.start)) statements.push(target);
  });
  return [...functions, ...statements].sort((a, b) => a.start - b.start);
}

/** Offsets of each line's first character in the LF text. */
function lineStarts(lines: readonly string[]): number[] {
  const starts: number[] = [];
  let offset = 0;
  for (const line of lines) {
    starts.push(offset);
    offset += line.length + 1;
  }
  starts.push(offset);
  return starts;
}

function indentOf(line: string): number {
  return line.length - line.trimStart().length;
}

/**
 * When `header` opens a block (ends with ':' and the next line is indented deeper), the last
 * line of its body: deeper-indented lines and blank lines between them; at most MAX_BLOCK_LINES.
 */
export function blockBodyEnd(lines: readonly string[], header: number): number | undefined {
  const text = lines[header]!;
  const trimmed = text.trim();
  if (!trimmed.endsWith(':') || trimmed.startsWith('#')) return undefined;
  const next = lines[header + 1];
  if (next === undefined || next.trim() === '' || indentOf(next) <= indentOf(text)) return undefined;
  let last = header + 1;
  for (let i = header + 2; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.trim() === '') continue;
    if (indentOf(line) <= indentOf(text)) break;
    last = i;
  }
  return last - header <= MAX_BLOCK_LINES ? last : undefined;
}

/**
 * The seeded targets of one repository, per kind: all candidates sorted by path and offset,
 * then a sample of 3 × the wanted count (targets longer than maxTokens are skipped downstream,
 * so callers take from the front until they have enough). The same for the data builder and
 * the labeler, so labels describe the same instances the model is trained on.
 */
export function drawTargets(
  view: IndexView, repository: string, perRepository: number, mix: Record<TargetKind, number>, parser: SyntaxParser,
): Record<TargetKind, Target[]> {
  const pools: Record<TargetKind, Target[]> = { line: [], api: [], block: [] };
  for (const file of view.files()) {
    const found = findTargets(file, view, parser);
    for (const kind of TARGET_KINDS) pools[kind].push(...found[kind]);
  }
  const random = seededRandom(`targets:${repository}`);
  const drawn: Record<TargetKind, Target[]> = { line: [], api: [], block: [] };
  for (const kind of TARGET_KINDS) {
    pools[kind].sort((a, b) => (a.relPath < b.relPath ? -1 : a.relPath > b.relPath ? 1 : a.start - b.start));
    const wanted = Math.round(perRepository * mix[kind]) * 3;
    drawn[kind] = kind === 'block' ? drawBlocks(pools.block, wanted, random) : sample(pools[kind], wanted, random);
  }
  return drawn;
}

/**
 * Block targets half from function bodies, half from other statements' bodies (one source fills
 * in for the other when it runs short), alternating so that any prefix keeps the balance.
 */
function drawBlocks(pool: readonly Target[], wanted: number, random: Random): Target[] {
  const functions = pool.filter((t) => t.body === 'function');
  const statements = pool.filter((t) => t.body !== 'function');
  const fromFunctions = Math.min(functions.length, Math.max(Math.ceil(wanted / 2), wanted - statements.length));
  const fromF = sample(functions, fromFunctions, random);
  const fromS = sample(statements, wanted - fromF.length, random);
  const mixed: Target[] = [];
  for (let i = 0; i < Math.max(fromF.length, fromS.length); i++) {
    if (i < fromF.length) mixed.push(fromF[i]!);
    if (i < fromS.length) mixed.push(fromS[i]!);
  }
  return mixed;
}

export const TARGET_KINDS: readonly TargetKind[] = ['line', 'api', 'block'];
