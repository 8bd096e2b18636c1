/**
 * Index time per MB of one source set against another's, as issue 51 bounds it (each language
 * within 1.5× of Python's time per MB): indexBench.js in a fresh process per index, the two sets
 * alternating which goes first each round, with the server's node flags (shared/nodeFlags.ts)
 * unless `--no-server-flags`. Reports each round, the medians, and the mean of the rounds' ratios
 * OTHER/BASE with a bootstrap interval.
 *
 *   npx tsc -p tsconfig.json && node dist/bench/src/indexRatio.js BASE_DIR OTHER_DIR [--rounds 16] [--no-server-flags] [--warm]
 *
 * Why this shape: a process's first index pays for JIT and WASM warm-up, as a server's first
 * does, and that fixed cost weighs more per MB on a small set; and a shared machine's speed drifts
 * by a third or more over minutes, so one run of each set, or runs far apart, compare the machine,
 * not the languages. Rounds pair the two sets close in time; the interval says how far they agree.
 * `--warm` measures throughput alone: each process indexes its set once unmeasured first.
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Command } from 'commander';
import { SERVER_NODE_FLAGS } from '../../shared/nodeFlags.js';
import { positiveInt } from './cliNumbers.js';
import type { IndexMeasures } from './indexBench.js';
import { bootstrapMean } from './metrics/bootstrap.js';
import { markdownTable, num, withInterval } from './report/format.js';
import { quantile } from './stats.js';

const INDEX_BENCH = path.join(path.dirname(fileURLToPath(import.meta.url)), 'indexBench.js');

interface Options {
  rounds: number;
  serverFlags: boolean;
  warm?: boolean;
}

interface Round {
  base: IndexMeasures;
  other: IndexMeasures;
}

/** One full index of `dir` in a process of its own. */
function measure(dir: string, nodeFlags: readonly string[], warm: boolean): IndexMeasures {
  const output = execFileSync(process.execPath, [...nodeFlags, '--expose-gc', INDEX_BENCH, dir, '--json', ...(warm ? ['--warm'] : [])], { encoding: 'utf8' });
  return JSON.parse(output.trim().split('\n').at(-1)!) as IndexMeasures;
}

/** Rounds of both sets, the first of each pair alternating so that neither always runs first. */
function measureRounds(baseDir: string, otherDir: string, options: Options): Round[] {
  const nodeFlags = options.serverFlags ? SERVER_NODE_FLAGS : [];
  const once = (dir: string) => measure(dir, nodeFlags, options.warm === true);
  const rounds: Round[] = [];
  for (let i = 0; i < options.rounds; i++) {
    if (i % 2 === 0) {
      const base = once(baseDir);
      rounds.push({ base, other: once(otherDir) });
    } else {
      const other = once(otherDir);
      rounds.push({ base: once(baseDir), other });
    }
    process.stderr.write(`round ${i + 1}/${options.rounds}\n`);
  }
  return rounds;
}

function report(rounds: readonly Round[], options: Options): string {
  const ratios = rounds.map((round) => round.other.secondsPerMegabyte / round.base.secondsPerMegabyte);
  const base = rounds.map((round) => round.base.secondsPerMegabyte);
  const other = rounds.map((round) => round.other.secondsPerMegabyte);
  const first = rounds[0]!;
  const perRound = markdownTable(
    ['round', 'base s/MB', 'other s/MB', 'ratio'],
    rounds.map((round, i) => [String(i + 1), num(round.base.secondsPerMegabyte, 3), num(round.other.secondsPerMegabyte, 3), num(ratios[i]!, 3)]),
  );
  return [
    `base: ${first.base.dir} (${first.base.files} files, ${num(first.base.megabytes, 2)} MB)`,
    `other: ${first.other.dir} (${first.other.files} files, ${num(first.other.megabytes, 2)} MB)`,
    `node flags: ${options.serverFlags ? SERVER_NODE_FLAGS.join(' ') : 'none (--no-server-flags)'}, --expose-gc`,
    `index measured: ${options.warm ? 'the second of the process (--warm: JIT and WebAssembly tiers warm)' : 'the first of the process (cold, as a server\'s first)'}`,
    '',
    perRound,
    '',
    `median s/MB: base ${num(quantile(base, 0.5), 3)}, other ${num(quantile(other, 0.5), 3)}`,
    `ratio other/base: mean of rounds ${withInterval(bootstrapMean(ratios), 3)} (95 % bootstrap), median ${num(quantile(ratios, 0.5), 3)}`,
  ].join('\n');
}

function main(): void {
  const program = new Command('indexRatio')
    .description('Index time per MB of OTHER_DIR against BASE_DIR, in paired rounds of fresh processes')
    .argument('<baseDir>', 'the set compared against (Python, for issue 51)')
    .argument('<otherDir>', 'the set measured')
    .option('--rounds <n>', 'pairs of indexes to run', positiveInt, 16)
    .option('--no-server-flags', 'run node without the server\'s flags')
    .option('--warm', 'measure each process\'s second index of the set, the first unmeasured')
    .parse();
  const options = program.opts<Options>();
  const [baseDir, otherDir] = program.args as [string, string];
  console.log(report(measureRounds(path.resolve(baseDir), path.resolve(otherDir), options), options));
}

main();
