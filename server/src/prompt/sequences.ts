/**
 * The one definition of RepoShapley's serialized sequences (§3.4, Algorithm 1):
 *   selection      <PFX>Xp<SFX>Xs<NEED>Pack(Xcc)<SELECT>
 *   generation     <PFX>Xp<SFX>Xs<NEED>Pack(kept)<DONE><MID>
 *   no-retrieval   <PFX>Xp<SFX>Xs<DONE><MID>
 * with Pack = <C_1>cc_1</C_1> … <C_K>cc_K</C_K>, and the training formats that append targets.
 * Kept chunks are renumbered <C_1>..<C_m> in their original order in the generation format.
 *
 * Cursor echo (our addition, for models trained with it): the generation and no-retrieval
 * formats repeat the last `echoLines` lines of Xp after <MID>, the cursor line up to the cursor
 * last, so the middle continues text right before it. A small model trained from scratch does
 * not learn to carry `x = ` or `raise nx.` across the suffix and the chunks to <MID>: without
 * the echo ours answered `return ...` after `x = ` (docs/model-pipeline.md). Large FIM models need
 * no echo; a GGUF says it was trained with one in `reposhapley.echo_lines`.
 */
import { countLineBreaks } from '../indexing/textEdits.js';
import type { Candidate } from '../retrieval/types.js';
import { packCandidates, fitPrefix, fitSuffix, type PackedChunk, type TokenizedText } from './budget.js';
import type { LineTokenizer } from './lineTokenizer.js';
import { special, type Segment } from './segments.js';
import type { PromptBudgets } from '../../../shared/settings.js';

/** In-file context and packed candidates, fitted to the budgets; the input of every format. */
export interface PromptPlan {
  prefix: TokenizedText;
  suffix: TokenizedText;
  /** Packed candidates (those that fit), in rank order. */
  packed: PackedChunk[];
  /** The cursor echo after <MID> (the last lines of `prefix`); absent for models without one. */
  echo?: TokenizedText;
  /** The repository format's header: the repository's name and the current file's path, each with its newline. */
  repository?: { name: TokenizedText; file: TokenizedText };
  /**
   * The cursor line's text before the cursor, taken out of `prefix` and given after the middle
   * token as the middle's forced start (layouts.ts `repo-fim-line`); absent: it ends `prefix`.
   */
  cursorLine?: TokenizedText;
}

/** Most tokens of a cursor echo; a longer one keeps its end (the cursor line). */
export const MAX_ECHO_TOKENS = 48;

/** Fit the in-file context and the candidates to the budgets; `echoLines` > 0 adds the cursor echo. */
export function planPrompt(
  prefix: string, suffix: string, candidates: readonly Candidate[], budgets: PromptBudgets, tokenizer: LineTokenizer,
  echoLines = 0,
): PromptPlan {
  const fitted = fitPrefix(prefix, budgets.prefixTokens, tokenizer);
  const plan: PromptPlan = {
    prefix: fitted,
    suffix: fitSuffix(suffix, budgets.suffixTokens, tokenizer),
    packed: packCandidates(candidates, budgets.chunkTokens, tokenizer),
  };
  if (echoLines > 0) plan.echo = fitPrefix(lastLines(fitted.text, echoLines), MAX_ECHO_TOKENS, tokenizer);
  return plan;
}

/**
 * Lines of the document the prompt itself shows above and below the cursor line: the fitted
 * prefix's and suffix's line breaks. Retrieval leaves out chunks of the document within them
 * (RetrievalQuery.shownLines), since a chunk repeating them would spend the chunk budget twice.
 */
export function shownLinesOf(plan: Pick<PromptPlan, 'prefix' | 'suffix'>): { above: number; below: number } {
  return { above: countLineBreaks(plan.prefix.text), below: countLineBreaks(plan.suffix.text) };
}

/**
 * The last `count` lines of `text` with their newlines; the final one is the cursor line's text
 * before the cursor, and counts only when it is not empty (at a line start the echo is the
 * `count` lines above).
 */
function lastLines(text: string, count: number): string {
  let start = text.length;
  for (let seen = 0; seen < count && start > 0; seen++) start = text.lastIndexOf('\n', start - 2) + 1;
  return text.slice(start);
}

const text = (t: TokenizedText): Segment => ({ kind: 'text', text: t.text, ids: t.ids });

/** <MID>, then the cursor echo when the plan has one. */
function middle(plan: PromptPlan): Segment[] {
  return plan.echo && plan.echo.ids.length > 0 ? [special('MID'), text(plan.echo)] : [special('MID')];
}

/** X = <PFX>Xp<SFX>Xs: evaluated once and reused by every step (Algorithm 1 line 2). */
export function inFileSegments(plan: PromptPlan): Segment[] {
  return [special('PFX'), text(plan.prefix), special('SFX'), text(plan.suffix)];
}

/** Pack(chunks), numbering them <C_1>.. in the given order. */
export function packSegments(chunks: readonly PackedChunk[]): Segment[] {
  return chunks.flatMap((chunk, i) => [
    special(`C_${i + 1}`), { kind: 'text', text: chunk.text, ids: chunk.ids } as Segment, special(`/C_${i + 1}`),
  ]);
}

/** Format-1 prompt up to <SELECT> (Algorithm 1 line 14). */
export function selectionSegments(plan: PromptPlan): Segment[] {
  return [...inFileSegments(plan), special('NEED'), ...packSegments(plan.packed), special('SELECT')];
}

/** Generation prompt with the kept chunks (Algorithm 1 lines 20–22). `kept` indexes plan.packed. */
export function generationSegments(plan: PromptPlan, kept: readonly number[]): Segment[] {
  const chunks = kept.map((i) => plan.packed[i]!);
  return [...inFileSegments(plan), special('NEED'), ...packSegments(chunks), special('DONE'), ...middle(plan)];
}

/** No-retrieval prompt (Algorithm 1 line 7). */
export function noRetrievalSegments(plan: PromptPlan): Segment[] {
  return [...inFileSegments(plan), special('DONE'), ...middle(plan)];
}

/** Format-1 training sequence: selection prompt, q_1..q_K, <DONE> (§3.4). */
export function formatOneSegments(plan: PromptPlan, keep: readonly boolean[]): Segment[] {
  return [...selectionSegments(plan), ...keep.map((k) => special(k ? 'KEEP' : 'DROP')), special('DONE')];
}

/**
 * Format-2 / no-retrieval training sequence: the prompt, then Y and end-of-text. A target cut
 * to what one completion generates (`ended` false) has no end-of-text: the text goes on.
 */
export function withTarget(prompt: readonly Segment[], target: TokenizedText, ended = true): Segment[] {
  return ended ? [...prompt, text(target), special('EOT')] : [...prompt, text(target)];
}
