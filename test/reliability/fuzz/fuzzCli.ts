/**
 * The fuzz run on demand, longer than CI's:
 *
 *   npm run build && node dist/test/reliability/fuzz/fuzzCli.js [--cases N] [--seed S] [--seeds K] [--batch B] [--server-log]
 *
 * Runs K seeds (S, S+1, ...) of N cases each and prints one JSON report per seed; exits 1 on the
 * first failure, printing the seed that reproduces it. `--server-log` copies the server's stderr
 * to ./reposhapley-fuzz-server-SEED.log (level from REPOSHAPLEY_LOG, default warn).
 */
import { runFuzz, type FuzzReport } from './fuzzRun.js';

const args = process.argv.slice(2);
function flag(name: string, fallback: number): number {
  const index = args.indexOf(name);
  const value = index >= 0 ? Number(args[index + 1]) : Number.NaN;
  return Number.isFinite(value) ? value : fallback;
}

function summary(report: FuzzReport): unknown {
  const sorted = [...report.probeLatenciesMs].sort((a, b) => a - b);
  const at = (q: number) => Math.round(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0);
  return { ...report, probeLatenciesMs: undefined, probeMs: { p50: at(0.5), p95: at(0.95), max: at(1) } };
}

async function main(): Promise<void> {
  const seed = flag('--seed', 1);
  const seeds = flag('--seeds', 1);
  for (let s = seed; s < seed + seeds; s++) {
    const report = await runFuzz({
      seed: s, cases: flag('--cases', 100_000), batchSize: flag('--batch', 100),
      log: (line) => process.stderr.write(`[seed ${s}] ${line}\n`),
      serverLog: args.includes('--server-log') ? `reposhapley-fuzz-server-${s}.log` : undefined,
    });
    process.stdout.write(`${JSON.stringify(summary(report))}\n`);
    const failed = report.unanswered.length > 0 || !report.healthy || report.exitCode !== 0;
    if (failed) {
      process.stderr.write(`seed ${s} failed: ${report.unanswered.length} unanswered, healthy ${report.healthy}, exit ${report.exitCode}\n`);
      process.exit(1);
    }
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack ?? error.message : String(error)}\n`);
  process.exit(1);
});
