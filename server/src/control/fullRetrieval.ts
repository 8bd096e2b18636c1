/** Full-Retrieve (RepoShapley §4.1 baseline): every top-K candidate that fits the chunk budget. */
import { generateWith } from './generate.js';
import type { ContextPolicy, PolicyContext, PolicyResult } from './types.js';

export const fullRetrievalPolicy: ContextPolicy = {
  name: 'full',
  async run(context: PolicyContext): Promise<PolicyResult> {
    const { candidates, packed } = await context.retrieveAndPack();
    const kept = packed.map((_, i) => i);
    const result = await generateWith(context, packed, kept);
    return { decision: 'need', candidates, packed, kept, decisionMs: 0, selectionMs: 0, ...result };
  },
};
