/**
 * The progress bar with ETA on stderr (stdout stays free for the report's path). Outside a
 * terminal it prints a status line every 10 s instead of redrawing.
 */
import cliProgress from 'cli-progress';

/** What the runner reports to the user while it works. */
export interface ProgressReporter {
  /** A line of text (stage changes, warnings). */
  log(line: string): void;
  start(total: number, stage: string): void;
  /** One more task run finished. */
  tick(stage: string): void;
  stop(): void;
}

/** The cli-progress bar on stderr; log lines are printed above it without resetting the ETA. */
export function createProgressBar(): ProgressReporter {
  const bars = new cliProgress.MultiBar({
    stream: process.stderr,
    format: '{bar} {percentage}% | {value}/{total} runs | elapsed {duration_formatted} | ETA {eta_formatted} | {stage}',
    // Task times vary by type (blocks generate more): a long buffer keeps the ETA steady.
    etaBuffer: 60,
    etaAsynchronousUpdate: true,
    fps: 4,
    noTTYOutput: true,
    notTTYSchedule: 10_000,
    hideCursor: false,
  }, cliProgress.Presets.shades_classic);
  let bar: cliProgress.SingleBar | undefined;
  return {
    log(line) {
      if (bar) bars.log(`${line}\n`);
      else process.stderr.write(`${line}\n`);
    },
    start(total, stage) {
      bar = bars.create(total, 0, { stage });
    },
    tick(stage) {
      bar?.increment(1, { stage });
    },
    stop() {
      bars.stop();
      bar = undefined;
    },
  };
}

/** No bar: stage lines only (--no-progress, tests). */
export function createQuietProgress(write: (line: string) => void = (line) => process.stderr.write(`${line}\n`)): ProgressReporter {
  return { log: write, start() {}, tick() {}, stop() {} };
}
