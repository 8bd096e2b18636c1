/**
 * Top-10 retrieval latency over an indexed directory (default: the CPython 3.11 stdlib).
 * Cursors are sampled with a fixed seed from non-blank lines of indexed files.
 *
 *   npm run build && node dist/bench/src/retrievalBench.js [DIR] [--queries N]
 */
import { Command } from 'commander';
import { WorkspaceIndex } from '../../server/src/indexing/workspaceIndex.js';
import type { FileIndex } from '../../server/src/indexing/types.js';
import { LexicalIndex } from '../../server/src/retrieval/lexicalIndex.js';
import { Retriever } from '../../server/src/retrieval/retriever.js';
import type { RetrievalQuery } from '../../server/src/retrieval/types.js';
import { positiveInt } from './cliNumbers.js';
import { ms, quantile, seededRandom } from './stats.js';

const WINDOW_LINES = 20;

function program(): Command {
  return new Command('retrievalBench')
    .description('Top-10 retrieval latency over an indexed directory, cursors sampled with a fixed seed')
    .argument('[dir]', 'directory to index and query', '/usr/lib/python3.11')
    .option('--queries <n>', 'retrieval queries timed', positiveInt, 1000);
}

function sampleQueries(files: FileIndex[], count: number, random: () => number): RetrievalQuery[] {
  const queries: RetrievalQuery[] = [];
  while (queries.length < count) {
    const file = files[Math.floor(random() * files.length)]!;
    const line = Math.floor(random() * file.lines.length);
    const text = file.lines[line] ?? '';
    if (text.trim() === '') continue;
    const column = text.length - text.trimStart().length;
    queries.push({
      file, relPath: file.relPath, cursorLine: line,
      prefixLines: [...file.lines.slice(0, line), text.slice(0, column)],
      suffixText: file.lines.slice(line + 1, line + 20).join('\n'),
    });
  }
  return queries;
}

async function main(): Promise<void> {
  const command = program().parse(process.argv);
  const dir = command.processedArgs[0] as string;
  const queryCount = command.opts<{ queries: number }>().queries;
  const index = new WorkspaceIndex({ windowLines: WINDOW_LINES, windowStride: 10 });
  const lexical = new LexicalIndex(index);
  index.onDidChange((changes) => lexical.applyChanges(changes));
  const started = performance.now();
  await index.indexRoots([dir]);
  const indexMs = performance.now() - started;
  const retriever = new Retriever(index, lexical);
  const queries = sampleQueries([...index.files()], queryCount, seededRandom(7));
  for (const query of queries.slice(0, 50)) retriever.retrieve(query, { topK: 10, windowLines: WINDOW_LINES });
  const times = queries.map((query) => {
    const t0 = performance.now();
    retriever.retrieve(query, { topK: 10, windowLines: WINDOW_LINES });
    return performance.now() - t0;
  });
  const rssMb = process.memoryUsage().rss / 2 ** 20;
  process.stdout.write([
    `| what | value |`, `|---|---|`,
    `| directory | ${dir} |`, `| files indexed | ${index.stats().files} |`, `| windows | ${lexical.windowCount} |`,
    `| index + lexical index wall (ms) | ${ms(indexMs)} |`,
    `| top-10 retrieval p50 / p95 / max (ms), ${queries.length} queries | ${ms(quantile(times, 0.5))} / ${ms(quantile(times, 0.95))} / ${ms(Math.max(...times))} |`,
    `| RSS after (MB) | ${rssMb.toFixed(0)} |`, '',
  ].join('\n'));
  index.dispose();
}

await main();
