/** Choosing the policy: `auto` = reposhapley when the model has the control tokens, else full. */
import type { PolicyName } from '../../../shared/settings.js';
import type { ModelInfo } from '../model/completionModel.js';
import type { Logger } from '../util/logger.js';
import { fullRetrievalPolicy } from './fullRetrieval.js';
import { noRetrievalPolicy } from './noRetrieval.js';
import { createRepoShapleyPolicy } from './repoShapley.js';
import type { ContextPolicy, EffectivePolicy, PromptLayout } from './types.js';

const repoShapleyPolicy = createRepoShapleyPolicy();

const POLICIES: Record<EffectivePolicy, ContextPolicy> = {
  none: noRetrievalPolicy, full: fullRetrievalPolicy, reposhapley: repoShapleyPolicy,
};

/** The layout a model supports. */
export function layoutFor(info: ModelInfo): PromptLayout {
  return info.hasControlTokens ? 'reposhapley' : 'plain-fim';
}

/**
 * Resolve the configured policy for a model. Asking for `reposhapley` on a model without
 * control tokens falls back to `full`; both fallbacks are logged once per model by the caller's logger.
 */
export function resolvePolicy(requested: PolicyName, info: ModelInfo, logger: Logger): ContextPolicy {
  if (requested === 'none' || requested === 'full') return POLICIES[requested];
  if (info.hasControlTokens) return POLICIES.reposhapley;
  const key = `${info.path}:${requested}`;
  if (!loggedFallbacks.has(key)) {
    loggedFallbacks.add(key);
    logger.info(`${info.path} has no RepoShapley control tokens: policy '${requested}' runs as 'full' (plain FIM).`);
  }
  return POLICIES.full;
}

const loggedFallbacks = new Set<string>();
