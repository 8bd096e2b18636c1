/**
 * Choosing the policy: `auto` = reposhapley when the model has the control tokens and was trained
 * to use them on the document's language, else full.
 */
import type { LanguageId } from '../../../shared/languages.js';
import type { PolicyName } from '../../../shared/settings.js';
import type { ModelInfo } from '../model/completionModel.js';
import type { Logger } from '../util/logger.js';
import { fullRetrievalPolicy } from './fullRetrieval.js';
import { noRetrievalPolicy } from './noRetrieval.js';
import { createRepoShapleyPolicy } from './repoShapley.js';
import type { ContextPolicy, EffectivePolicy } from './types.js';

const repoShapleyPolicy = createRepoShapleyPolicy();

const POLICIES: Record<EffectivePolicy, ContextPolicy> = {
  none: noRetrievalPolicy, full: fullRetrievalPolicy, reposhapley: repoShapleyPolicy,
};

/**
 * Resolve the configured policy for a model. Asking for `reposhapley` on a model without
 * control tokens, or on a backend that cannot read the model's trigger, falls back to `full`;
 * every fallback is logged once per model by the caller's logger.
 */
export function resolvePolicy(requested: PolicyName, info: ModelInfo, logger: Logger, language?: LanguageId): ContextPolicy {
  if (requested === 'none' || requested === 'full') return POLICIES[requested];
  if (!info.hasControlTokens) {
    logOnce(logger, `${info.path}:${requested}`, `${info.path} has no RepoShapley control tokens: policy '${requested}' runs as 'full' (plain FIM).`);
    return POLICIES.full;
  }
  if (info.triggerSoftmax === 'vocabulary' && !info.vocabularyDecisions) {
    logOnce(logger, `${info.path}:vocabulary`, `${info.path} reads its trigger over the whole vocabulary, which this backend (a llama-server) ` +
      `does not report: policy '${requested}' runs as 'full'. Use the local model for the reposhapley policy.`);
    return POLICIES.full;
  }
  // An explicit request runs as asked (ablations, distillation checks); auto wants a model that learned the tokens.
  if (requested === 'reposhapley') return POLICIES.reposhapley;
  if (info.controlTokensTrained && !isTrainedOn(info, language)) {
    logOnce(logger, `${info.path}:${language ?? 'unknown'}`, `${info.path}'s control was trained on ${controlLanguagesOf(info).join(', ')}, ` +
      `not on ${language ?? 'this document\'s language'}: policy 'auto' runs as 'full' there.`);
    return POLICIES.full;
  }
  if (info.controlTokensTrained) return POLICIES.reposhapley;
  logOnce(logger, `${info.path}:untrained`, `${info.path} has the control tokens but was not trained to use them (a base model): policy 'auto' runs as 'full'.`);
  return POLICIES.full;
}

/** The languages a model's control rows were trained on; packs that do not say were trained on Python. */
function controlLanguagesOf(info: ModelInfo): readonly LanguageId[] {
  return info.controlLanguages ?? ['python'];
}

/** A document of no registered language is let through: nothing says the control is wrong there. */
function isTrainedOn(info: ModelInfo, language: LanguageId | undefined): boolean {
  return language === undefined || controlLanguagesOf(info).includes(language);
}

function logOnce(logger: Logger, key: string, message: string): void {
  if (loggedFallbacks.has(key)) return;
  loggedFallbacks.add(key);
  logger.info(message);
}

const loggedFallbacks = new Set<string>();
