/**
 * Index benchmark (workspace index plus the retrieval postings the server keeps with it): full
 * index of a directory (wall time, time per MB, peak RSS), idle RSS afterwards, and the update latency of one-character edits in a
 * ~3,000-line open document. Any registered language: the directory's source files of every one.
 *
 *   npx tsc -p tsconfig.json && node --expose-gc dist/bench/src/indexBench.js [DIR] [--json] [--warm]
 *
 * `--json` prints only the full index's figures, on one line (what indexRatio.ts reads).
 * `--warm` indexes the directory once, unmeasured, before the measured index.
 *
 * DIR defaults to /usr/lib/python3.11. Targets on the 2-core reference machine: full index
 * <= 10 s and <= 500 MB peak RSS; edit update <= 15 ms p95.
 */
import { Command } from 'commander';
import { createStreamLogger } from '../../server/src/util/logger.js';
import { WorkspaceIndex, type IndexRootsResult } from '../../server/src/indexing/workspaceIndex.js';
import { LexicalIndex } from '../../server/src/retrieval/lexicalIndex.js';
import type { FileIndex } from '../../server/src/indexing/types.js';

const TARGET_LINES = 3000;
const EDITS = 200;
const MB = 1024 * 1024;

interface EditSite {
  line: number;
  character: number;
}

/** The indexed file whose length is closest to TARGET_LINES (ties: smaller relPath). */
function pickEditFile(files: Iterable<FileIndex>): FileIndex | undefined {
  let best: FileIndex | undefined;
  for (const file of files) {
    const distance = Math.abs(file.lines.length - TARGET_LINES);
    const bestDistance = best ? Math.abs(best.lines.length - TARGET_LINES) : Infinity;
    if (distance < bestDistance || (distance === bestDistance && best && file.relPath < best.relPath)) best = file;
  }
  return best;
}

/** The end of the first identifier on the first line at or after the middle that has one. */
function pickEditSite(file: FileIndex): EditSite {
  for (let line = Math.floor(file.lines.length / 2); line < file.lines.length; line++) {
    const match = /[A-Za-z_][A-Za-z0-9_]*/.exec(file.lines[line]!);
    if (match) return { line, character: match.index + match[0].length };
  }
  return { line: 0, character: 0 };
}

const ms = (value: number) => `${value.toFixed(2)} ms`;

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/** Alternately insert one identifier character and delete it again, timing each update. */
function timeEdits(index: WorkspaceIndex, file: FileIndex, site: EditSite): number[] {
  index.openDocument(file.absPath, file.text);
  const times: number[] = [];
  for (let i = 0; i < EDITS; i++) {
    const start = { line: site.line, character: site.character };
    const edit = i % 2 === 0
      ? { range: { start, end: start }, text: 'x' }
      : { range: { start, end: { line: site.line, character: site.character + 1 } }, text: '' };
    const began = performance.now();
    const result = index.applyDocumentEdits(file.absPath, [edit]);
    times.push(performance.now() - began);
    if (result.kind !== 'indexed') throw new Error(`edit ${i} was not indexed: ${JSON.stringify(result)}`);
  }
  return times;
}

/** The figures indexRatio.ts compares, as `--json` prints them. */
export interface IndexMeasures {
  dir: string;
  files: number;
  megabytes: number;
  indexSeconds: number;
  secondsPerMegabyte: number;
}

/** A workspace index of `dir` with the retrieval postings the server keeps in step with it, and its wall time. */
async function indexWithPostings(dir: string): Promise<{ index: WorkspaceIndex; result: IndexRootsResult; indexMs: number }> {
  const index = await WorkspaceIndex.create({ logger: createStreamLogger('index', 'warn') });
  const lexical = new LexicalIndex(index);
  index.onDidChange((changes) => lexical.applyChanges(changes));
  const started = performance.now();
  const result = await index.indexRoots([dir]);
  return { index, result, indexMs: performance.now() - started };
}

async function main(): Promise<void> {
  const program = new Command('indexBench')
    .argument('[dir]', 'directory to index', '/usr/lib/python3.11')
    .option('--json', "print only the full index's figures, on one line (what indexRatio.ts reads)")
    .option('--warm', 'index the directory once, unmeasured, before the measured index')
    .parse();
  const [dir] = program.processedArgs as [string];
  const options = program.opts<{ json?: boolean; warm?: boolean }>();
  // --warm: one unmeasured index first, dropped, so that the measured one runs with the JIT and
  // WebAssembly tiers warm (a process's first index runs much of its code unoptimized).
  if (options.warm) (await indexWithPostings(dir)).index.dispose();
  const { index, result, indexMs } = await indexWithPostings(dir);
  const stats = index.stats();
  if (options.json) {
    const megabytes = stats.bytes / MB;
    const measures: IndexMeasures = { dir, files: result.files, megabytes, indexSeconds: indexMs / 1000, secondsPerMegabyte: indexMs / 1000 / megabytes };
    process.stdout.write(`${JSON.stringify(measures)}\n`);
    index.dispose();
    return;
  }
  const peakRssMb = process.resourceUsage().maxRSS / 1024;
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  const idleRssMb = process.memoryUsage().rss / MB;
  const file = pickEditFile(index.files());
  if (!file) throw new Error(`no source files under ${dir}`);
  const site = pickEditSite(file);
  const inOrder = timeEdits(index, file, site);
  const times = [...inOrder].sort((a, b) => a - b);
  // The first edits after a full index pay for JIT compilation of the edit path and GC settling.
  const warm = inOrder.slice(EDITS / 2).sort((a, b) => a - b);
  const rows = [
    ['directory', dir],
    ['files indexed / skipped', `${result.files} / ${result.skipped.length}`],
    ['lines / MB', `${stats.lines} / ${(stats.bytes / MB).toFixed(2)}`],
    ['windows / structural chunks / definitions', `${stats.windows} / ${stats.structuralChunks} / ${stats.definitions}`],
    ['full index wall time', `${(indexMs / 1000).toFixed(2)} s (target <= 10 s)`],
    // Languages compare by this (issue 51: each within 1.5x of Python's).
    ['full index time per MB of source', `${(indexMs / 1000 / (stats.bytes / MB)).toFixed(2)} s/MB`],
    ['peak RSS', `${peakRssMb.toFixed(0)} MB (target <= 500 MB)`],
    [`idle RSS after index${gc ? ' (after gc)' : ' (run with --expose-gc to collect first)'}`, `${idleRssMb.toFixed(0)} MB`],
    ['edited file', `${file.relPath} (${file.lines.length} lines), line ${site.line + 1}`],
    [`one-char edit update, all ${EDITS} edits`, `p50 ${ms(percentile(times, 50))}, p95 ${ms(percentile(times, 95))}, max ${ms(times.at(-1)!)} (target p95 <= 15 ms)`],
    [`one-char edit update, last ${warm.length} edits`, `p50 ${ms(percentile(warm, 50))}, p95 ${ms(percentile(warm, 95))}`],
  ];
  const table = ['| measure | value |', '|---|---|', ...rows.map(([k, v]) => `| ${k} | ${v} |`)].join('\n');
  process.stdout.write(table + '\n');
  index.dispose();
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack ?? error.message : String(error)}\n`);
  process.exitCode = 1;
});
