/**
 * Reads settings as editors send them (initializationOptions, didChangeConfiguration,
 * workspace/configuration) into a typed SettingsPatch. The wire is untrusted: unknown keys and
 * values the schema (shared/settings.ts) rejects are dropped, so a typo in a user's config never
 * reaches the engine.
 */
import { pickValidSettings, readSetting, type SettingsPatch } from '../../../shared/settings.js';

/** The configuration section the server reads. */
export const SETTINGS_SECTION = 'reposhapley';

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
  return isRecord(source) ? pickValidSettings((key) => readSetting(source, key)) : {};
}

/** Whether a patch changes nothing. */
export function isEmptyPatch(patch: SettingsPatch): boolean {
  return Object.keys(patch).length === 0;
}
