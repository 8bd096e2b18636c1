/**
 * VS Code's `reposhapley.*` configuration -> the server's settings (shared/settings.ts). The
 * server validates everything again; this only converts what VS Code stores differently
 * (`gpuLayers` is a string here, so the Settings UI can edit it) and leaves out client-only keys.
 */
import { POLICY_NAMES, type PolicyName, type SettingsPatch } from '../../shared/settings.js';

/** The configuration section, as in package.json `contributes.configuration`. */
export const SECTION = 'reposhapley';

/** Reads one key of the section (`vscode.WorkspaceConfiguration.get`). */
export type ReadSetting = (key: string) => unknown;

/** Numeric settings passed through as they are. */
const NUMBER_KEYS = ['topK', 'needThreshold', 'threads', 'debounceMs', 'maxTokens'] as const;
const BUDGET_KEYS = ['prefixTokens', 'suffixTokens', 'chunkTokens'] as const;

/** The server's settings from the `reposhapley` configuration section. */
export function toSettingsPatch(read: ReadSetting): SettingsPatch {
  const patch: SettingsPatch = {};
  const enabled = read('enabled');
  if (typeof enabled === 'boolean') patch.enabled = enabled;
  const modelPath = read('modelPath');
  if (typeof modelPath === 'string') patch.modelPath = modelPath.trim();
  const policy = read('policy');
  if (POLICY_NAMES.includes(policy as PolicyName)) patch.policy = policy as PolicyName;
  for (const key of NUMBER_KEYS) {
    const value = read(key);
    if (typeof value === 'number') patch[key] = value;
  }
  // Cleared in the Settings UI: back to the t_c the model records.
  if (read('needThreshold') === null) patch.needThreshold = null;
  const budgets: NonNullable<SettingsPatch['budgets']> = {};
  for (const key of BUDGET_KEYS) {
    const value = read(`budgets.${key}`);
    if (typeof value === 'number') budgets[key] = value;
  }
  if (Object.keys(budgets).length > 0) patch.budgets = budgets;
  const gpuLayers = toGpuLayers(read('gpuLayers'));
  if (gpuLayers !== undefined) patch.gpuLayers = gpuLayers;
  return patch;
}

/** `"auto"` or a whole number of layers (the setting is a string so the Settings UI can edit it). */
export function toGpuLayers(value: unknown): SettingsPatch['gpuLayers'] {
  if (typeof value === 'number' && Number.isInteger(value) && value >= 0) return value;
  if (typeof value !== 'string') return undefined;
  const text = value.trim().toLowerCase();
  if (text === 'auto') return 'auto';
  return /^\d+$/.test(text) ? Number(text) : undefined;
}

/**
 * `initializationOptions`: the settings, plus the command the server attaches to completion
 * items with their trace id (server/src/lsp/README.md, "Trace ids reach the client only on request").
 */
export function initializationOptions(read: ReadSetting, completionCommand: string): SettingsPatch & { completionCommand: string } {
  return { ...toSettingsPatch(read), completionCommand };
}
