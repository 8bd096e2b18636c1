/** The generation step every policy ends with, timed. */
import type { PackedChunk } from '../prompt/budget.js';
import type { PolicyContext, PolicyResult } from './types.js';

/** Generate with the given packed chunks kept (none kept and none packed: the no-retrieval prompt). */
export async function generateWith(
  context: PolicyContext, packed: PackedChunk[], kept: number[],
): Promise<Pick<PolicyResult, 'generated' | 'promptTokens' | 'generationMs' | 'prompt'>> {
  const segments = context.layout.generation({ ...context.inFile, packed }, kept);
  const ids = context.toIds(segments);
  const started = performance.now();
  const generated = await context.session.generate(ids, context.generation, context.signal);
  return { generated, promptTokens: ids.length, generationMs: performance.now() - started, prompt: segments };
}
