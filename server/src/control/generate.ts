/** The generation step every policy ends with, timed. */
import type { PackedChunk } from '../prompt/budget.js';
import { noRetrievalSegments, generationSegments } from '../prompt/sequences.js';
import { plainFimSegments } from '../prompt/plainFim.js';
import type { PolicyContext, PolicyResult } from './types.js';

/** Generate with the given packed chunks kept (none: the no-retrieval format). */
export async function generateWith(
  context: PolicyContext, packed: PackedChunk[], kept: number[],
): Promise<Pick<PolicyResult, 'generated' | 'promptTokens' | 'generationMs' | 'prompt'>> {
  const plan = { ...context.inFile, packed };
  const segments = context.layout === 'plain-fim' ? plainFimSegments(plan, kept)
    : kept.length === 0 && packed.length === 0 ? noRetrievalSegments(plan)
      : generationSegments(plan, kept);
  const ids = context.toIds(segments);
  const started = performance.now();
  const generated = await context.session.generate(ids, context.generation, context.signal);
  return { generated, promptTokens: ids.length, generationMs: performance.now() - started, prompt: segments };
}
