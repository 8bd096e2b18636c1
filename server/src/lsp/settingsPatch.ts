/**
 * Reads settings as editors send them (initializationOptions, didChangeConfiguration,
 * workspace/configuration) into a typed SettingsPatch. The wire is untrusted: unknown keys
 * and values of the wrong type are dropped, so a typo in a user's config never reaches the engine.
 */
import { POLICY_NAMES, type PolicyName, type PromptBudgets, type SettingsPatch } from '../../../shared/settings.js';

/** The configuration section the server reads. */
export const SETTINGS_SECTION = 'reposhapley';

type Checker = (value: unknown) => boolean;

const isNumber: Checker = (value) => typeof value === 'number' && Number.isFinite(value) && value >= 0;
const isString: Checker = (value) => typeof value === 'string';
const isBoolean: Checker = (value) => typeof value === 'boolean';
const isPolicy: Checker = (value) => POLICY_NAMES.includes(value as PolicyName);
const isGpuLayers: Checker = (value) => value === 'auto' || isNumber(value);

const FIELD_CHECKS: Record<Exclude<keyof SettingsPatch, 'budgets'>, Checker> = {
  modelPath: isString,
  policy: isPolicy,
  topK: isNumber,
  // null = the model's recorded t_c.
  needThreshold: (value) => value === null || isNumber(value),
  threads: isNumber,
  gpuLayers: isGpuLayers,
  debounceMs: isNumber,
  maxTokens: isNumber,
  windowLines: isNumber,
  windowStride: isNumber,
  enabled: isBoolean,
  tracePrompt: isBoolean,
};

const BUDGET_KEYS: readonly (keyof PromptBudgets)[] = ['prefixTokens', 'suffixTokens', 'chunkTokens'];

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The `reposhapley` section if `value` wraps one, else `value` itself. */
export function unwrapSection(value: unknown): unknown {
  return isRecord(value) && isRecord(value[SETTINGS_SECTION]) ? value[SETTINGS_SECTION] : value;
}

/**
 * Untrusted settings -> SettingsPatch. Accepts the patch itself or `{ reposhapley: patch }`;
 * anything that is not an object yields an empty patch.
 */
export function readSettingsPatch(value: unknown): SettingsPatch {
  const source = unwrapSection(value);
  if (!isRecord(source)) return {};
  const patch: Record<string, unknown> = {};
  for (const [key, check] of Object.entries(FIELD_CHECKS)) {
    if (key in source && check(source[key])) patch[key] = source[key];
  }
  const budgets = readBudgets(source.budgets);
  if (budgets) patch.budgets = budgets;
  return patch as SettingsPatch;
}

function readBudgets(value: unknown): Partial<PromptBudgets> | undefined {
  if (!isRecord(value)) return undefined;
  const budgets: Partial<PromptBudgets> = {};
  for (const key of BUDGET_KEYS) {
    if (isNumber(value[key])) budgets[key] = value[key] as number;
  }
  return Object.keys(budgets).length > 0 ? budgets : undefined;
}

/** Whether a patch changes nothing. */
export function isEmptyPatch(patch: SettingsPatch): boolean {
  return Object.keys(patch).length === 0;
}
