/**
 * Plain fill-in-the-middle layout for models without RepoShapley's control tokens
 * (StarCoder, CodeLlama, DeepSeek-Coder, Qwen2.5-Coder: all prefix-suffix-middle order).
 * Cross-file chunks go before the prefix as comments, headed by their path, so the
 * prefix stays valid code (the CrossCodeEval convention).
 */
import type { Candidate } from '../retrieval/types.js';
import { lineCommentOf } from '../languages/registry.js';
import type { PromptPlan } from './sequences.js';
import { special, type Segment } from './segments.js';

/** <PFX>[chunks as comments]Xp<SFX>Xs<MID>, using the packed chunks whose indexes are in `kept`. */
export function plainFimSegments(plan: PromptPlan, kept: readonly number[]): Segment[] {
  const chunks: Segment[] = kept.map((i) => {
    const chunk = plan.packed[i]!;
    return { kind: 'text', text: chunk.text, ids: chunk.ids };
  });
  return [
    special('PFX'), ...chunks, { kind: 'text', text: plan.prefix.text, ids: plan.prefix.ids },
    special('SFX'), { kind: 'text', text: plan.suffix.text, ids: plan.suffix.ids }, special('MID'),
  ];
}

/**
 * A candidate as comments headed by its path and line, so the prefix stays valid code: comments
 * of the candidate's language, which is the document's but for a cross-language candidate.
 */
export function commentedChunk(candidate: Candidate, body: string): string {
  const comment = lineCommentOf(candidate.chunk.relPath);
  const lines = body.replace(/\n$/, '').split('\n').map((line) => (line ? `${comment} ${line}` : comment));
  return `${comment} Context from ${candidate.chunk.relPath}:${candidate.chunk.startLine + 1}\n${lines.join('\n')}\n`;
}
