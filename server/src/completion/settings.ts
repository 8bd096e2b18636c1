/** Merging settings patches from editors (bad values are ignored, never fatal; shared/settings.ts says what is bad). */
import { DEFAULT_SETTINGS, pickValidSettings, readSetting, type CompletionSettings, type SettingsPatch } from '../../../shared/settings.js';

/** Apply a patch; fields of the wrong type or out of the schema's range keep their current value. */
export function mergeSettings(current: CompletionSettings, patch: SettingsPatch | undefined): CompletionSettings {
  if (!patch || typeof patch !== 'object') return current;
  const { budgets, languages, ...flat } = pickValidSettings((key) => readSetting(patch, key));
  return { ...current, ...flat, budgets: { ...current.budgets, ...budgets }, languages: { ...current.languages, ...languages } };
}

/** Settings from defaults plus a patch. */
export function settingsFrom(patch?: SettingsPatch): CompletionSettings {
  return mergeSettings(DEFAULT_SETTINGS, patch);
}
