/**
 * Token budgets (in model tokens) for the prefix, the suffix and the packed chunks, each kept by
 * whole lines: the prefix is cut from the left, the suffix from the right (RepoShapley §3.3(a)
 * left-truncates the input context). Chunks are packed in rank order; one that does not fit is
 * reduced to its signature before it is dropped (Rivet §3.4, Budget Shaping).
 */
import { lineCommentOf } from '../languages/registry.js';
import type { Candidate } from '../retrieval/types.js';
import type { PromptBudgets } from '../../../shared/settings.js';
import { LineTokenizer, splitKeepingNewlines } from './lineTokenizer.js';

/** A span of text with its ids. */
export interface TokenizedText {
  text: string;
  ids: number[];
}

/** A candidate as packed into the prompt. */
export interface PackedChunk {
  /** Index into the retrieved candidate list (0-based). */
  candidateIndex: number;
  /** Header line plus body (or signature), ending in '\n'. */
  text: string;
  ids: number[];
  /** True when the body was reduced to the signature to fit the budget. */
  reduced: boolean;
}

/** Chunks have delimiters only up to <C_10> (RepoShapley K = 10). */
export const MAX_PACKED_CHUNKS = 10;

/** The last whole lines of `prefix` that fit `budget`; the cursor line is always kept (its tail, if alone too long). */
export function fitPrefix(prefix: string, budget: number, tokenizer: LineTokenizer): TokenizedText {
  // Lines are taken from the cursor backwards, so a completion near the end of a long file
  // touches only the lines that fit, not every line above it.
  const kept: number[][] = [];
  let used = 0;
  let end = prefix.length;
  while (end > 0) {
    // The line ending at `end` starts after the previous '\n' (its own '\n' is at end - 1).
    const start = end >= 2 ? prefix.lastIndexOf('\n', end - 2) + 1 : 0;
    const piece = prefix.slice(start, end);
    const ids = tokenizer.piece(piece);
    if (used + ids.length > budget) {
      if (end === prefix.length) return tailOfLine(piece, budget, tokenizer);
      break;
    }
    kept.push(ids);
    used += ids.length;
    end = start;
  }
  return { text: prefix.slice(end), ids: kept.reverse().flat() };
}

/** The first whole lines of `suffix` that fit `budget`. */
export function fitSuffix(suffix: string, budget: number, tokenizer: LineTokenizer): TokenizedText {
  const ids: number[] = [];
  let text = '';
  for (const piece of splitKeepingNewlines(suffix)) {
    const pieceIds = tokenizer.piece(piece);
    if (ids.length + pieceIds.length > budget) break;
    ids.push(...pieceIds);
    text += piece;
  }
  return { text, ids };
}

/**
 * Pack candidates in rank order within `budget` tokens, counting two delimiter tokens per chunk.
 * `render` turns (header, body) into the chunk's text, so layouts can comment it out.
 */
export function packCandidates(
  candidates: readonly Candidate[], budget: number, tokenizer: LineTokenizer,
  render: (candidate: Candidate, body: string) => string = chunkBody,
): PackedChunk[] {
  const packed: PackedChunk[] = [];
  let used = 0;
  for (const [index, candidate] of candidates.entries()) {
    if (packed.length === MAX_PACKED_CHUNKS) break;
    const full = tokenizeChunk(render(candidate, candidate.text), tokenizer);
    const fitted = used + full.ids.length + 2 <= budget ? { ...full, reduced: false }
      : candidate.signature ? { ...tokenizeChunk(render(candidate, candidate.signature), tokenizer), reduced: true }
        : undefined;
    if (!fitted || used + fitted.ids.length + 2 > budget) continue;
    packed.push({ candidateIndex: index, ...fitted });
    used += fitted.ids.length + 2;
  }
  return packed;
}

/**
 * The paper heads each chunk by its path; we add the line range so users can find it, as a
 * comment of the chunk's language (`#` where none is known).
 */
export function chunkBody(candidate: Candidate, body: string): string {
  const { relPath, startLine } = candidate.chunk;
  return `${lineCommentOf(relPath)} ${relPath}:${startLine + 1}\n${withFinalNewline(body)}`;
}

/** `text` ending in exactly the newline it has, or one added. */
export function withFinalNewline(text: string): string {
  return text.endsWith('\n') ? text : `${text}\n`;
}

function tokenizeChunk(text: string, tokenizer: LineTokenizer): TokenizedText {
  return { text, ids: tokenizer.text(text) };
}

/**
 * A cursor line longer than the whole budget (minified data, a giant literal): keep its tail.
 * Code averages well under 4 characters per token, so the last 4 × budget characters hold
 * at least `budget` tokens; the ids are cut to the budget.
 */
function tailOfLine(line: string, budget: number, tokenizer: LineTokenizer): TokenizedText {
  if (budget <= 0) return { text: '', ids: [] };
  const text = line.slice(-budget * 4);
  return { text, ids: tokenizer.piece(text).slice(-budget) };
}

/**
 * Shrink the budgets proportionally when prefix + suffix + chunks, the control tokens
 * (2 per chunk, K selection decisions, 6 markers) and the generated tokens exceed the model's
 * context; budgets that already fit are returned unchanged.
 */
export function fitBudgetsToContext(
  budgets: PromptBudgets, contextSize: number, maxTokens: number, topK: number,
): PromptBudgets {
  const overhead = tokensBesideBudgets(maxTokens, topK);
  const wanted = budgets.prefixTokens + budgets.suffixTokens + budgets.chunkTokens;
  const available = Math.max(0, contextSize - overhead);
  if (wanted <= available) return budgets;
  const scale = available / wanted;
  return {
    prefixTokens: Math.floor(budgets.prefixTokens * scale),
    suffixTokens: Math.floor(budgets.suffixTokens * scale),
    chunkTokens: Math.floor(budgets.chunkTokens * scale),
  };
}

/** The control tokens (2 per chunk, K selection decisions), 6 markers and the generated tokens. */
function tokensBesideBudgets(maxTokens: number, topK: number): number {
  return 3 * Math.min(topK, MAX_PACKED_CHUNKS) + 6 + maxTokens;
}

/** Room for what no budget counts: the repository's name and the document's path (a long path is ~40 tokens). */
const UNBUDGETED_TOKENS = 128;
/** Context sizes are multiples of this, so that small changes of the budgets keep the loaded model. */
const CONTEXT_STEP = 512;

/**
 * The context a model needs for these budgets: every prompt the pipeline builds, with the
 * tokens generated after it, fits. A context is KV cache and attention scratch sized by its
 * positions, held per session (per editor window); a 4,096 context where prompts take ~1,000
 * tokens held 11–22 MB more per session than one of 1,536 (docs/benchmarks.md).
 */
export function contextSizeFor(budgets: PromptBudgets, maxTokens: number, topK: number): number {
  const needed = budgets.prefixTokens + budgets.suffixTokens + budgets.chunkTokens + tokensBesideBudgets(maxTokens, topK) + UNBUDGETED_TOKENS;
  return Math.ceil(needed / CONTEXT_STEP) * CONTEXT_STEP;
}
