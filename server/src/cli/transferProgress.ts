/**
 * The TransferProgress of the CLI on stderr (stdout stays free for results): a cli-progress bar
 * with rate and ETA in a terminal; outside one, only a start line and an end line per phase.
 */
import cliProgress from 'cli-progress';
import type { TransferProgress } from '../modelStore/progress.js';

/** The stream the progress goes to (process.stderr, or a fake in tests). */
export interface ProgressStream {
  isTTY?: boolean;
  write(text: string): unknown;
}

interface Phase {
  label: string;
  total: number;
  done: number;
  startedAt: number;
}

function megabytes(bytes: number): string {
  return (bytes / 1e6).toFixed(1);
}

/** "label: 491.4 MB in 9.8 s (50.1 MB/s)" */
export function phaseSummary(phase: Phase, now: number): string {
  const seconds = Math.max((now - phase.startedAt) / 1000, 0.001);
  return `${phase.label}: ${megabytes(phase.done)} MB in ${seconds.toFixed(1)} s (${megabytes(phase.done / seconds)} MB/s)`;
}

function createBar(stream: ProgressStream): cliProgress.SingleBar {
  return new cliProgress.SingleBar({
    stream: stream as NodeJS.WritableStream,
    format: '{label} {bar} {percentage}% | {doneMb}/{totalMb} MB | {rate} MB/s | ETA {eta_formatted}',
    etaBuffer: 40,
    fps: 5,
    hideCursor: false,
  }, cliProgress.Presets.shades_classic);
}

/** Progress on `stream`; `now` is injectable for tests. */
export function createTransferProgress(stream: ProgressStream = process.stderr, now: () => number = Date.now): TransferProgress {
  let phase: Phase | undefined;
  let bar: cliProgress.SingleBar | undefined;
  const payload = (current: Phase) => ({
    label: current.label,
    doneMb: megabytes(current.done),
    totalMb: megabytes(current.total),
    rate: megabytes(current.done / Math.max((now() - current.startedAt) / 1000, 0.001)),
  });
  return {
    start(label, totalBytes) {
      phase = { label, total: totalBytes, done: 0, startedAt: now() };
      if (stream.isTTY) {
        bar = createBar(stream);
        bar.start(totalBytes, 0, payload(phase));
      } else {
        stream.write(`${label} ...\n`);
      }
    },
    update(doneBytes) {
      if (!phase) return;
      phase.done = doneBytes;
      bar?.update(doneBytes, payload(phase));
    },
    stop() {
      if (!phase) return;
      bar?.stop();
      if (!bar) stream.write(`${phaseSummary(phase, now())}\n`);
      bar = undefined;
      phase = undefined;
    },
    note(line) {
      stream.write(`${line}\n`);
    },
  };
}
