/**
 * The soak benchmark (issue 7): 10,000 edits typed at human speed with a completion request per
 * keystroke over benchmark repositories, then a 60-second burst of 100 requests per second,
 * each cancelling the one before. Prints p50/p95 latency, stuck requests against the stated
 * bounds, and the resident memory of the server and of its model host at start and end (from
 * /proc/PID/status): the host holds the weights, the contexts and their KV caches.
 *
 *   npm run build && nice -n 10 node dist/bench/src/soak.js [--edits 10000] [--burst-seconds 60] [--rate 100]
 *     [--packages python3-requests,python3-click,...] [--stdlib] [--speed 1] [--seed 1] [--model X.gguf [--adapter LORA.gguf]] [--threads 1] [--json FILE]
 *     [--tiny] [--node-args "--max-old-space-size=256"]
 *
 * Benchmark repositories: Debian packages from /work/shared/bench/packages.txt, fetched into
 * ~/.cache/reposhapley/pkgs by bench/src/debianPackages.ts (cached ones are not fetched again),
 * one workspace folder per package. `--stdlib` uses /usr/lib/python3.11 instead. The model is
 * `--model PATH`, else the bundled default model (models/default/*.gguf), else (or with `--tiny`)
 * the tiny generated GGUF (test/support/tinyModel.ts).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Command } from 'commander';
import { findBundledModel } from '../../server/src/completion/modelChoice.js';
import { writeTinyModel } from '../../test/support/tinyModel.js';
import { nonNegativeInt, nonNegativeNumber, positiveInt, positiveNumber } from './cliNumbers.js';
import { fetchDebianPackage } from './debianPackages.js';
import { runSoak, type MemoryReport, type PhaseReport, type SoakReport } from './soakDriver.js';
import { fasterTyping, HUMAN_TYPING, typableFiles } from './soakTyping.js';

/** The first benchmark packages with enough code to type in: 205 files together. */
const SOAK_PACKAGES = ['python3-requests', 'python3-click', 'python3-jinja2', 'python3-flask', 'python3-rich'];

interface SoakFlags {
  edits: number; burstSeconds: number; rate: number; packages?: string; stdlib?: boolean; speed: number; seed: number;
  model?: string; adapter?: string; threads: number; json?: string; tiny?: boolean; nodeArgs?: string;
}

function program(): Command {
  return new Command('soak')
    .description('Soak benchmark: edits typed at human speed with a completion request per keystroke, then a burst of requests each cancelling the one before')
    .option('--edits <n>', 'edits typed in the replay', positiveInt, 10_000)
    .option('--burst-seconds <s>', 'length of the burst after the replay (0 = no burst)', nonNegativeNumber, 60)
    .option('--rate <n>', 'requests per second in the burst', positiveNumber, 100)
    .option('--packages <list>', `comma-separated Debian packages to type in (default: ${SOAK_PACKAGES.join(',')})`)
    .option('--stdlib', 'type in /usr/lib/python3.11 instead of Debian packages')
    .option('--speed <factor>', 'typing speed as a multiple of human speed', positiveNumber, 1)
    .option('--seed <n>', 'seed of the typing script', nonNegativeInt, 1)
    .option('--model <gguf>', 'model file (default: the bundled model, else the tiny generated GGUF)')
    .option('--adapter <gguf>', 'a LoRA adapter for --model (the control pack\'s adapter.gguf: what the server runs by default)')
    .option('--threads <n>', 'model CPU threads (1 leaves a core to the replay; the real model\'s default is 2)', positiveInt, 1)
    .option('--json <file>', 'also write the full report as JSON to this file (default: none)')
    .option('--tiny', 'use the tiny generated GGUF instead of the bundled model')
    .option('--node-args <args>', 'space-separated node flags for the server process, e.g. "--max-old-space-size=256" (default: none)');
}

async function benchmarkRoots(flags: SoakFlags): Promise<string[]> {
  if (flags.stdlib) return ['/usr/lib/python3.11'];
  const names = flags.packages?.split(',') ?? SOAK_PACKAGES;
  const roots: string[] = [];
  for (const name of names) {
    const pkg = await fetchDebianPackage(name);
    roots.push(...pkg.moduleRoots.filter((root) => !root.endsWith('.py')));
  }
  return roots;
}

function row(name: string, phase: PhaseReport): string {
  const q = (x: { p50: number; p95: number; max: number }) => `${x.p50.toFixed(0)} / ${x.p95.toFixed(0)} / ${x.max.toFixed(0)}`;
  return `| ${name} | ${phase.requests} | ${phase.shown} (${phase.withText} with text) | ${phase.cancelled} | ${q(phase.shownLatencyMs)} | ${q(phase.cancelSettleMs)} | ${phase.errors} | ${phase.stuck} |`;
}

function memoryRow(name: string, m: MemoryReport): string {
  const mb = (kib: number) => (kib / 1024).toFixed(0);
  return `| ${name} | ${mb(m.initialKiB)} | ${mb(m.startKiB)} | ${mb(m.endKiB)} | ${(m.growth * 100).toFixed(1)}% | ${mb(m.peakKiB)} | ${mb(m.burstStartKiB)} / ${mb(m.burstEndKiB)} |`;
}

/** The report as markdown, the way docs/reliability.md records it. */
function formatSoak(report: SoakReport): string {
  const m = report.memory;
  return [
    `workspace: ${report.roots.length} folder(s), ${report.indexedFiles ?? '?'} files indexed in ${(report.indexMs / 1000).toFixed(1)} s; ${report.files} files typed in`,
    '',
    '| phase | requests | shown (answered before the next keystroke) | cancelled by the next | shown latency p50 / p95 / max (ms) | cancel-to-answer p50 / p95 / max (ms) | errors | stuck |',
    '|---|---|---|---|---|---|---|---|',
    row(`replay, ${report.edits} edits, ${(report.replay.wallMs / 60_000).toFixed(1)} min`, report.replay),
    row(`burst, ${(report.burst.wallMs / 1000).toFixed(0)} s`, report.burst),
    '',
    `stuck = not answered within ${report.answerBoundMs} ms of being sent or ${report.cancelBoundMs} ms of being cancelled. ` +
      `A fresh invoked request right after the burst was answered in ${report.burst.drainMs.toFixed(0)} ms.`,
    '',
    '| RSS (MB) | after initialize | after warm-up (median) | end of replay (median) | growth | peak | burst start / end |',
    '|---|---|---|---|---|---|---|',
    memoryRow('server', m.server),
    memoryRow('model host (weights, contexts, KV caches)', m.modelHost),
    '',
    `exit code ${report.exitCode}; error lines logged by the server: ${report.serverErrorLines}; wall ${(report.wallMs / 60_000).toFixed(1)} min`,
  ].join('\n');
}

async function main(): Promise<void> {
  const flags = program().parse(process.argv).opts<SoakFlags>();
  const roots = await benchmarkRoots(flags);
  const files = roots.flatMap(typableFiles);
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'reposhapley-soak-'));
  try {
    const modelPath = (flags.model && path.resolve(flags.model)) ?? (flags.tiny ? undefined : findBundledModel())
      ?? (await writeTinyModel({ path: path.join(scratch, 'tiny.gguf'), contextLength: 4096 })).path;
    const report = await runSoak({
      roots, files, modelPath,
      edits: flags.edits,
      typing: fasterTyping(HUMAN_TYPING, flags.speed),
      burstSeconds: flags.burstSeconds,
      burstRate: flags.rate,
      seed: flags.seed,
      settings: { threads: flags.threads, ...(flags.adapter ? { adapterPath: path.resolve(flags.adapter) } : {}) },
      nodeArgs: flags.nodeArgs?.split(' ').filter(Boolean),
      log: (line) => process.stderr.write(`${new Date().toISOString()} ${line}\n`),
    });
    if (flags.json) writeFileSync(flags.json, JSON.stringify(report, null, 1));
    process.stdout.write(`model: ${modelPath}${flags.adapter ? ` + LoRA adapter ${flags.adapter}` : ''}\n${formatSoak(report)}\n`);
    // NaN growth (no model host: an in-process model) is no failure of the host.
    const hostGrowth = report.memory.modelHost.startKiB > 0 ? report.memory.modelHost.growth : 0;
    const failed = report.replay.stuck + report.burst.stuck > 0 || report.exitCode !== 0
      || !(report.memory.server.growth < 0.2) || !(hostGrowth < 0.2);
    process.exitCode = failed ? 1 : 0;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack ?? error.message : String(error)}\n`);
  process.exit(1);
});
