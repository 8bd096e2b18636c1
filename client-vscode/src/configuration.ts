/**
 * VS Code's `reposhapley.*` configuration -> the server's settings (shared/settings.ts). Every
 * setting of the schema is read, validated by the schema as the server validates it, and left
 * out when invalid (the server keeps its value); only what VS Code stores differently is
 * converted (`gpuLayers` is a string here, so the Settings UI can edit it; strings are trimmed).
 * Client-only keys (`serverPath`) are not in the schema, so they never reach the server.
 */
import { pickValidSettings, type SettingKey, type SettingsPatch } from '../../shared/settings.js';

/** The configuration section, as in package.json `contributes.configuration`. */
export const SECTION = 'reposhapley';

/** Reads one key of the section (`vscode.WorkspaceConfiguration.get`). */
export type ReadSetting = (key: string) => unknown;

/** The server's settings from the `reposhapley` configuration section. */
export function toSettingsPatch(read: ReadSetting): SettingsPatch {
  return pickValidSettings((key) => fromVsCode(key, read(key)));
}

/** A value as VS Code stores it -> as the server takes it. */
function fromVsCode(key: SettingKey, value: unknown): unknown {
  if (key === 'gpuLayers') return toGpuLayers(value);
  return typeof value === 'string' ? value.trim() : value;
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
 * items with their trace id (server/src/lsp/README.md, "Trace ids reach the client only on request"),
 * and `modelPullOffer`: this client offers the download of a pullable model itself
 * (modelOffer.ts), so the server does not show its "not downloaded yet" warning as well.
 */
export function initializationOptions(
  read: ReadSetting, completionCommand: string,
): SettingsPatch & { completionCommand: string; modelPullOffer: true } {
  return { ...toSettingsPatch(read), completionCommand, modelPullOffer: true };
}
