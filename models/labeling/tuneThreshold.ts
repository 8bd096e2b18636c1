/**
 * CLI: tune t_c on the validation packages of the training corpus (never on benchmark
 * repositories) from one bench run, and print the value to export the model with.
 *
 *   npm run bench -- --model DISTILLED.gguf --policies none,reposhapley --need-threshold 0 \
 *     --packages python3-dulwich,python3-pyramid,python3-dnspython,python3-urwid,python3-paramiko,python3-networkx \
 *     --tasks line,api --limit 200 --out /tmp/tc
 *   node dist/models/labeling/tuneThreshold.js /tmp/tc/results.json [--json]
 *
 * See thresholdSweep.ts for the method. Refuses results from any repository that is not a
 * validation package, and results where `reposhapley` did not run its NEED branch everywhere
 * (the run must use --need-threshold 0, or the NEED branch's scores are unknown).
 * `--diagnose` describes the trigger on any packages instead (benchmark repositories too) and
 * prints no t_c to export; `--done-from` takes the `none` results from another run of the same
 * tasks (a bench run of none,full,reposhapley at the exported t_c, beside a reposhapley run at 0):
 *
 *   node dist/models/labeling/tuneThreshold.js --diagnose NOTRIGGER/results.json --done-from BENCH/results.json
 *
 * `--need-branch full` asks instead whether P(<NEED>) ranks the tasks where Full-Retrieve beats
 * no retrieval (the full-helps trigger target), from one run of `full,reposhapley` at
 * --need-threshold 1 (pairBranches.ts).
 */
import { readFileSync } from 'node:fs';
import { Command } from 'commander';
import type { TaskResult } from '../../bench/src/driver/results.js';
import { isValidationPackage } from '../corpus/splits.js';
import { NEED_BRANCHES, pairBranches, type NeedBranch } from './pairBranches.js';
import { sweepThresholds, triggerSkill, type SweepPoint, type TriggerSkill } from './thresholdSweep.js';

function refuseForeignPackages(results: readonly TaskResult[]): void {
  const foreign = [...new Set(results.map((r) => r.repository))].filter((name) => !isValidationPackage(name));
  if (foreign.length > 0) throw new Error(`t_c is tuned on validation packages only; these are not: ${foreign.join(', ')}`);
}

const skillLine = (s: TriggerSkill) =>
  `trigger: AUC ${s.auc.toFixed(3)} of P(<NEED>) over the ${s.decisive} tasks whose branches differ (NEED wins ${s.needWins}; ` +
  `0.5 = it knows nothing of which wins); a perfect trigger would score ES ${s.oracleEs.toFixed(2)}`;

// Three significant digits: a P(<NEED>) read over the whole vocabulary is far below 1 %.
const threshold = (t: number) => (t === 0 ? '0' : t.toPrecision(3));
const row = (p: SweepPoint) => `| ${threshold(p.threshold)} | ${p.es.toFixed(2)} | ${p.em.toFixed(1)} | ${(100 * p.needRate).toFixed(0)} % |`;

function main(): void {
  const program = new Command('tuneThreshold')
    .argument('<results>', 'results.json of a bench run on validation packages (policies none,reposhapley; --need-threshold 0)')
    .option('--json', 'print the sweep as JSON')
    .option('--diagnose', 'describe the trigger on any packages (no t_c to export)')
    .option('--done-from <results>', 'take the policy none results from this run of the same tasks')
    .option('--full-from <results>', 'with --need-branch full: take the policy full results from this run of the same tasks')
    .option('--need-branch <policy>', `the NEED branch: ${NEED_BRANCHES.join(' | ')} (full: Full-Retrieve's completions, pairBranches.ts)`, 'reposhapley')
    .parse();
  const options = program.opts<{ json?: boolean; diagnose?: boolean; doneFrom?: string; fullFrom?: string; needBranch: NeedBranch }>();
  if (!NEED_BRANCHES.includes(options.needBranch)) throw new Error(`--need-branch must be one of ${NEED_BRANCHES.join(', ')}`);
  if (options.needBranch !== 'reposhapley' && !options.diagnose) throw new Error('--need-branch full describes the trigger only: add --diagnose');
  const read = (file: string) => (JSON.parse(readFileSync(file, 'utf8')) as { results: TaskResult[] }).results;
  const results = read(program.args[0]!);
  const doneResults = options.doneFrom ? read(options.doneFrom) : results;
  if (!options.diagnose) refuseForeignPackages([...results, ...doneResults]);
  const tasks = pairBranches(results, doneResults, options.needBranch, options.fullFrom ? read(options.fullFrom) : results);
  const { best, points } = sweepThresholds(tasks);
  const skill = triggerSkill(tasks);
  if (options.json) {
    process.stdout.write(`${JSON.stringify({ best, points, skill })}\n`);
    return;
  }
  // The full sweep has a point per task; show one per tenth of NEED rate (any probability scale) plus the best.
  const grid = [...new Set([1, 0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2, 0.1, 0].map((rate) =>
    points.reduce((a, b) => (Math.abs(b.needRate - rate) < Math.abs(a.needRate - rate) ? b : a))))];
  const verdict = options.diagnose ? [] : [`export with: --need-threshold ${best.threshold.toPrecision(4)}`];
  process.stdout.write(['| t_c | ES | EM % | NEED |', '|---|---|---|---|', ...grid.map(row), '', `best: ${row(best)}`,
    skillLine(skill), ...verdict, ''].join('\n'));
}

main();
