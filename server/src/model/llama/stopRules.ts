/**
 * Where generated text must end: the single-line newline rule and stop strings.
 * Pure text logic, so it is tested without a model.
 */
import type { GenerationOptions, GenerationResult } from '../completionModel.js';

/** A cut point in generated text and why. */
export interface TextStop {
  /** Length of the text to keep. */
  index: number;
  reason: Extract<GenerationResult['stoppedBy'], 'newline' | 'stop-string'>;
}

/**
 * The earliest stop in `text`, if any. Single-line mode stops at the first newline that
 * follows some non-whitespace (leading blank lines are part of the completion), dropping
 * a '\r' before it; stop strings end the text just before them.
 */
export function findTextStop(text: string, options: Pick<GenerationOptions, 'singleLine' | 'stopStrings'>): TextStop | undefined {
  let best: TextStop | undefined;
  if (options.singleLine) {
    const newline = firstNewlineAfterContent(text);
    if (newline !== undefined) best = { index: newline, reason: 'newline' };
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
