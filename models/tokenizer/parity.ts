/**
 * Parity: the trainer's encoder (Hugging Face tokenizers) and llama.cpp through node-llama-cpp
 * must give the same ids for the same text, line by line (as the prompt module tokenizes) and
 * for whole files.
 */
import type { Tokenizer } from 'tokenizers';
import { splitKeepingNewlines } from '../../server/src/prompt/lineTokenizer.js';
import { encodeAll } from './hfTokenizer.js';

export interface ParityMismatch {
  label: string;
  /** 1-based line, or 0 for the whole-file comparison. */
  line: number;
  text: string;
  trainer: number[];
  llama: number[];
}

export interface ParityReport {
  files: number;
  lines: number;
  bytes: number;
  tokens: number;
  mismatchedLines: number;
  mismatchedFiles: number;
  /** Files whose whole-text tokenization differs. */
  mismatchedWholeFiles: number;
  /** The first few mismatches. */
  examples: ParityMismatch[];
}

/** Compare the two tokenizers on every file, line by line and whole. */
export async function checkParity(
  files: ReadonlyArray<{ label: string; text: string }>,
  trainer: Tokenizer,
  llamaTokenize: (text: string) => number[],
  maxExamples = 5,
): Promise<ParityReport> {
  const report: ParityReport = { files: 0, lines: 0, bytes: 0, tokens: 0, mismatchedLines: 0, mismatchedFiles: 0, mismatchedWholeFiles: 0, examples: [] };
  const note = (m: ParityMismatch) => { if (report.examples.length < maxExamples) report.examples.push(m); };
  for (const { label, text } of files) {
    report.files++;
    report.bytes += Buffer.byteLength(text, 'utf8');
    const lines = splitKeepingNewlines(text);
    const [whole = [], ...perLine] = await encodeAll(trainer, [text, ...lines]);
    let fileMismatch = false;
    lines.forEach((line, i) => {
      const expected = perLine[i]!;
      const actual = llamaTokenize(line);
      report.lines++;
      report.tokens += actual.length;
      if (!sameIds(expected, actual)) {
        report.mismatchedLines++;
        fileMismatch = true;
        note({ label, line: i + 1, text: line, trainer: expected, llama: actual });
      }
    });
    const wholeLlama = llamaTokenize(text);
    if (!sameIds(whole, wholeLlama)) {
      report.mismatchedWholeFiles++;
      fileMismatch = true;
      note({ label, line: 0, text: text.slice(0, 200), trainer: whole.slice(0, 50), llama: wholeLlama.slice(0, 50) });
    }
    if (fileMismatch) report.mismatchedFiles++;
  }
  return report;
}

function sameIds(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((id, i) => id === b[i]);
}
