/** Merging and validating settings patches from editors (bad values are ignored, never fatal). */
import { DEFAULT_SETTINGS, POLICY_NAMES, type CompletionSettings, type PolicyName, type SettingsPatch } from '../../../shared/settings.js';

/** Apply a patch; fields of the wrong type or out of range keep their current value. */
export function mergeSettings(current: CompletionSettings, patch: SettingsPatch | undefined): CompletionSettings {
  if (!patch || typeof patch !== 'object') return current;
  const p = patch as Record<string, unknown>;
  const budgets = (p.budgets && typeof p.budgets === 'object' ? p.budgets : {}) as Record<string, unknown>;
  return {
    modelPath: typeof p.modelPath === 'string' ? p.modelPath : current.modelPath,
    policy: POLICY_NAMES.includes(p.policy as PolicyName) ? (p.policy as PolicyName) : current.policy,
    topK: intIn(p.topK, 0, 10, current.topK),
    budgets: {
      prefixTokens: intIn(budgets.prefixTokens, 16, 32_768, current.budgets.prefixTokens),
      suffixTokens: intIn(budgets.suffixTokens, 0, 32_768, current.budgets.suffixTokens),
      chunkTokens: intIn(budgets.chunkTokens, 0, 32_768, current.budgets.chunkTokens),
    },
    // null goes back to the model's own t_c.
    needThreshold: p.needThreshold === null ? null : numberIn(p.needThreshold, 0, 1, current.needThreshold),
    threads: intIn(p.threads, 0, 256, current.threads),
    gpuLayers: p.gpuLayers === 'auto' ? 'auto' : intIn(p.gpuLayers, 0, 10_000, current.gpuLayers as number),
    debounceMs: intIn(p.debounceMs, 0, 5_000, current.debounceMs),
    maxTokens: intIn(p.maxTokens, 1, 1_024, current.maxTokens),
    windowLines: intIn(p.windowLines, 1, 200, current.windowLines),
    windowStride: intIn(p.windowStride, 1, 200, current.windowStride),
    enabled: typeof p.enabled === 'boolean' ? p.enabled : current.enabled,
    tracePrompt: typeof p.tracePrompt === 'boolean' ? p.tracePrompt : current.tracePrompt,
  };
}

/** Settings from defaults plus a patch. */
export function settingsFrom(patch?: SettingsPatch): CompletionSettings {
  return mergeSettings(DEFAULT_SETTINGS, patch);
}

function intIn(value: unknown, min: number, max: number, fallback: number): number {
  return typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max ? value : fallback;
}

function numberIn<T extends number | null>(value: unknown, min: number, max: number, fallback: T): number | T {
  return typeof value === 'number' && Number.isFinite(value) && value >= min && value <= max ? value : fallback;
}
