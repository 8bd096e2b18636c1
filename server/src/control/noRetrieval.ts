/** No-Retrieve (RepoShapley §4.1 baseline): in-file context only. */
import { generateWith } from './generate.js';
import type { ContextPolicy, PolicyContext, PolicyResult } from './types.js';

export const noRetrievalPolicy: ContextPolicy = {
  name: 'none',
  async run(context: PolicyContext): Promise<PolicyResult> {
    const result = await generateWith(context, [], []);
    return { decision: 'done', candidates: [], packed: [], kept: [], decisionMs: 0, selectionMs: 0, ...result };
  },
};
