/**
 * The paper's file-level filters (RepoShapley Appendix A.2) and the text normalization that
 * deduplication and decontamination hash. The size, binary and line-length checks are the
 * server's own (workspace/fileFilters.ts), so the corpus keeps only what the server would index.
 */
import { checkFileBytes, DEFAULT_CONTENT_LIMITS, type ContentLimits } from '../../server/src/workspace/fileFilters.js';

/** A.2 thresholds beyond the server's content limits. */
export interface CorpusFilterLimits extends ContentLimits {
  /** Fewer non-empty lines than this: 'too-short' (A.2: 10). */
  minNonEmptyLines: number;
  /** Letters and digits over all characters below this: 'low-alphanumeric' (A.2: 0.35). */
  minAlphanumericDensity: number;
}

/** A.2: ≥10 non-empty lines, longest line ≤300, mean ≤120, alphanumeric density ≥0.35; 1 MiB as the server. */
export const CORPUS_FILTER_LIMITS: Readonly<CorpusFilterLimits> = {
  ...DEFAULT_CONTENT_LIMITS,
  minNonEmptyLines: 10,
  minAlphanumericDensity: 0.35,
};

/** Why a file's content is not kept. */
export type ContentSkipReason = 'too-large' | 'binary' | 'minified' | 'deeply-nested' | 'too-short' | 'low-alphanumeric';

export type CorpusTextCheck =
  | { kind: 'ok'; text: string }
  | { kind: 'skip'; reason: ContentSkipReason; detail: string };

/** All A.2 file checks on raw bytes, cheapest first; decodes (permissively) when the file passes. */
export function checkCorpusFile(bytes: Uint8Array, limits: CorpusFilterLimits = CORPUS_FILTER_LIMITS): CorpusTextCheck {
  const base = checkFileBytes(bytes, limits);
  if (base.kind === 'skip') return base;
  const text = base.text;
  const lines = nonEmptyLineCount(text);
  if (lines < limits.minNonEmptyLines) {
    return { kind: 'skip', reason: 'too-short', detail: `${lines} non-empty lines < ${limits.minNonEmptyLines}` };
  }
  const density = alphanumericDensity(text);
  if (density < limits.minAlphanumericDensity) {
    return { kind: 'skip', reason: 'low-alphanumeric', detail: `alphanumeric density ${density.toFixed(3)} < ${limits.minAlphanumericDensity}` };
  }
  return { kind: 'ok', text };
}

/** Lines with at least one non-whitespace character. */
export function nonEmptyLineCount(text: string): number {
  let count = 0;
  for (const line of text.split('\n')) if (line.trim().length > 0) count++;
  return count;
}

const LETTER_OR_DIGIT = /[\p{L}\p{N}]/u;

/** Letters and digits (any script) over all characters, whitespace included (A.2). */
export function alphanumericDensity(text: string): number {
  if (text.length === 0) return 0;
  let alnum = 0;
  let total = 0;
  for (const char of text) {
    total++;
    const code = char.codePointAt(0)!;
    if (code < 128) {
      if ((code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122)) alnum++;
    } else if (LETTER_OR_DIGIT.test(char)) {
      alnum++;
    }
  }
  return alnum / total;
}

/**
 * A.2's normalized representation: each line's whitespace runs collapsed to one space and
 * trimmed, blank lines dropped. Exact dedup, SimHash and the decontamination windows all read it,
 * so reindented or re-wrapped copies still match.
 */
export function normalizedLines(text: string): string[] {
  const out: string[] = [];
  for (const line of text.split('\n')) {
    const collapsed = line.replace(/\s+/g, ' ').trim();
    if (collapsed.length > 0) out.push(collapsed);
  }
  return out;
}
