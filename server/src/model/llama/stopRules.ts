/**
 * Where generated text must end: the single-line newline rule, stop strings and the
 * repetition stop. Pure text logic, so it is tested without a model.
 */
import type { GenerationOptions, GenerationResult } from '../completionModel.js';

/** A cut point in generated text and why. */
export interface TextStop {
  /** Length of the text to keep. */
  index: number;
  reason: Extract<GenerationResult['stoppedBy'], 'newline' | 'stop-string' | 'repetition'>;
}

/** Copies of one stretch, back to back, that count as a loop. */
export const REPEAT_COPIES = 3;
/** The shortest loop, in characters over all its copies: `0, 0, 0, ` is still code. */
export const REPEAT_MIN_CHARS = 12;

/**
 * The earliest stop in `text`, if any. Single-line mode stops at the first newline that
 * follows some non-whitespace (leading blank lines are part of the completion), dropping
 * a '\r' before it; stop strings end the text just before them; a loop
 * ({@link findRepetition}) ends it after its first copy, by default in single-line mode only.
 */
export function findTextStop(
  text: string, options: Pick<GenerationOptions, 'singleLine' | 'stopStrings' | 'repetitionStop'>,
): TextStop | undefined {
  let best: TextStop | undefined;
  if (options.repetitionStop ?? options.singleLine) best = findRepetition(text);
  if (options.singleLine) {
    const newline = firstNewlineAfterContent(text);
    if (newline !== undefined && (best === undefined || newline < best.index)) best = { index: newline, reason: 'newline' };
  }
  for (const stop of options.stopStrings ?? []) {
    if (stop === '') continue;
    const at = text.indexOf(stop);
    if (at >= 0 && (best === undefined || at < best.index)) best = { index: at, reason: 'stop-string' };
  }
  return best;
}

function firstNewlineAfterContent(text: string): number | undefined {
  const content = text.search(/\S/);
  if (content < 0) return undefined;
  const newline = text.indexOf('\n', content);
  if (newline < 0) return undefined;
  return text[newline - 1] === '\r' ? newline - 1 : newline;
}

/**
 * The first loop in `text`: a stretch of two or more distinct characters written
 * {@link REPEAT_COPIES} times back to back, {@link REPEAT_MIN_CHARS} characters or more in all.
 * Small models fall into such loops under greedy decoding (`f(x, 0), f(x, 0), f(x, 0), …` to the
 * token limit); the stop keeps the first copy and drops the rest. Runs of one character
 * (`========` under a heading) are never loops. Loops are found where they end, earliest first.
 */
export function findRepetition(text: string): TextStop | undefined {
  const minPeriod = Math.max(2, Math.ceil(REPEAT_MIN_CHARS / REPEAT_COPIES));
  // Length of the run of one character ending at each end: a window inside such a run is no
  // loop, and skipping it keeps a long run of spaces or `=` from costing a cubic scan.
  let run = 0;
  for (let end = 1; end <= text.length; end++) {
    run = end > 1 && text.charCodeAt(end - 1) === text.charCodeAt(end - 2) ? run + 1 : 1;
    for (let period = minPeriod; period * REPEAT_COPIES <= end; period++) {
      // A window of copies has two distinct characters exactly when it is not one run.
      if (run < period * REPEAT_COPIES && endsWithCopies(text, end, period)) {
        return { index: end - (REPEAT_COPIES - 1) * period, reason: 'repetition' };
      }
    }
  }
  return undefined;
}

/** Whether text[end - copies·period, end) is one stretch of `period` characters repeated. */
function endsWithCopies(text: string, end: number, period: number): boolean {
  const start = end - REPEAT_COPIES * period;
  // From the end backwards: a loop being written differs from its previous copy there first.
  for (let i = end - 1; i >= start + period; i--) {
    if (text.charCodeAt(i) !== text.charCodeAt(i - period)) return false;
  }
  return true;
}
