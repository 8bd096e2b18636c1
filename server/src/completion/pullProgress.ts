/**
 * A pull's TransferProgress (modelStore/progress.ts) as one rising percentage and one line, for
 * a progress bar. How many phases a pull runs depends on its source (PyPI: download, assemble,
 * verify; URL: download, verify; a cached file: verify) and a failed source is followed by the
 * next, so no phase gets a fixed range: each fills a share of what is left of the bar. The
 * percentage never goes down (LSP asks for a "steadily rising" one) and never reaches 100 before
 * the pull ends.
 */
import type { TransferProgress } from '../modelStore/progress.js';
import type { ModelPullProgress } from './engine.js';

/** The share of the bar still left that a phase fills, by its label's first word. */
const PHASE_SHARES: Readonly<Record<string, number>> = { download: 0.8, assemble: 0.5, verify: 0.9 };
const OTHER_SHARE = 0.5;
/** What the line says a phase is doing. */
const PHASE_VERBS: Readonly<Record<string, string>> = { download: 'downloading', assemble: 'assembling', verify: 'verifying' };

interface Phase {
  verb: string;
  totalBytes: number;
  /** Where on the bar the phase began, and how much of it the phase fills. */
  from: number;
  span: number;
  startedAt: number;
}

/** A TransferProgress that reports {@link ModelPullProgress} to `onProgress` at every event. */
export function pullProgressReporter(onProgress: (progress: ModelPullProgress) => void, now: () => number = Date.now): TransferProgress {
  let reached = 0;
  let phase: Phase | undefined;
  const report = (message: string): void => onProgress({ percentage: Math.floor(reached), message });
  return {
    start(label, totalBytes) {
      const word = label.split(' ')[0] ?? label;
      const span = (100 - reached) * (PHASE_SHARES[word] ?? OTHER_SHARE);
      phase = { verb: PHASE_VERBS[word] ?? word, totalBytes, from: reached, span, startedAt: now() };
      report(`${phase.verb} ${megabytes(totalBytes)} MB`);
    },
    update(doneBytes) {
      if (!phase) return;
      const fraction = phase.totalBytes > 0 ? Math.min(1, Math.max(0, doneBytes / phase.totalBytes)) : 0;
      reached = Math.max(reached, phase.from + phase.span * fraction);
      report(transferLine(phase, doneBytes, now()));
    },
    stop() {
      phase = undefined;
    },
    note(line) {
      report(line);
    },
  };
}

/** "assembling 210 / 491 MB, 12 MB/s" (the rate once a second has passed). */
function transferLine(phase: Phase, doneBytes: number, now: number): string {
  const seconds = (now - phase.startedAt) / 1000;
  const rate = seconds >= 1 ? `, ${megabytes(doneBytes / seconds)} MB/s` : '';
  return `${phase.verb} ${megabytes(doneBytes)} / ${megabytes(phase.totalBytes)} MB${rate}`;
}

function megabytes(bytes: number): number {
  return Math.round(bytes / 1e6);
}
