/**
 * CLI: one policy of one bench run against one policy of another, on the tasks both ran.
 *
 *   npm run build && node dist/bench/src/compare/cli.js CANDIDATE/results.json:reposhapley SHIPPED/results.json:full
 *
 * Prints mean EM / ES / prompt tokens of each side per task type and A − B with paired
 * bootstrap 95 % intervals (* where the interval excludes 0). See compareRuns.ts.
 */
import { readFileSync } from 'node:fs';
import { Command } from 'commander';
import type { TaskResult } from '../driver/results.js';
import { markdownTable, num, signedInterval } from '../report/format.js';
import { compareRuns, type RunSide } from './compareRuns.js';

function side(argument: string): RunSide {
  const at = argument.lastIndexOf(':');
  if (at <= 0) throw new Error(`${argument}: expected RESULTS.json:POLICY`);
  const file = argument.slice(0, at);
  const { results } = JSON.parse(readFileSync(file, 'utf8')) as { results: TaskResult[] };
  return { label: file, results, policy: argument.slice(at + 1) };
}

function main(): void {
  const program = new Command('compare')
    .argument('<a>', 'RESULTS.json:POLICY of run A')
    .argument('<b>', 'RESULTS.json:POLICY of run B')
    .parse();
  const [a, b] = program.args.map(side) as [RunSide, RunSide];
  const { rows, unpaired } = compareRuns(a, b);
  const table = markdownTable(
    ['type', 'tasks', 'A EM / ES', 'B EM / ES', 'A − B EM (points)', 'A − B ES (points)', 'prompt tok A / B'],
    rows.map((r) => [r.type, String(r.tasks), `${num(r.a.em)} / ${num(r.a.es)}`, `${num(r.b.em)} / ${num(r.b.es)}`,
      signedInterval(r.em), signedInterval(r.es), `${num(r.a.promptTokens, 0)} / ${num(r.b.promptTokens, 0)}`]),
  );
  const note = unpaired > 0 ? `\n${unpaired} task ids ran on one side only and are left out.` : '';
  process.stdout.write(`A: ${a.label} (${a.policy})\nB: ${b.label} (${b.policy})\n\n${table}${note}\n`);
}

try {
  main();
} catch (error) {
  process.stderr.write(`compare: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
}
