/**
 * `workspace/didChangeConfiguration`: settings under the `reposhapley` section. Clients of the
 * pull model send `settings: null`; then the server asks with `workspace/configuration`.
 */
import type { DidChangeConfigurationParams } from 'vscode-languageserver/node';
import { isEmptyPatch, readSettingsPatch, SETTINGS_SECTION } from './settingsPatch.js';
import type { ServerState } from './state.js';

/** Handles `workspace/didChangeConfiguration`. */
export function onDidChangeConfiguration(state: ServerState) {
  return async (params: DidChangeConfigurationParams): Promise<void> => {
    const settings: unknown = params?.settings;
    const pushed = settings !== null && settings !== undefined;
    if (!pushed && state.capabilities.workspace?.configuration) {
      await pullSettings(state);
      return;
    }
    await applySettings(state, settings);
  };
}

/** Asks the client for the `reposhapley` section and applies it. */
export async function pullSettings(state: ServerState): Promise<void> {
  const section: unknown = await state.connection.workspace.getConfiguration(SETTINGS_SECTION);
  await applySettings(state, section);
}

async function applySettings(state: ServerState, settings: unknown): Promise<void> {
  const patch = readSettingsPatch(settings);
  if (!state.engine || isEmptyPatch(patch)) return;
  state.logger.info(`settings changed: ${Object.keys(patch).join(', ')}`);
  await state.engine.updateSettings(patch);
}
