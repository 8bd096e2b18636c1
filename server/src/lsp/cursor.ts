/**
 * `reposhapley/cursor`: the editor says the cursor came to rest; the engine prefills the prompt
 * there in the background (completion/createEngine.ts `prefill`). Malformed params are ignored:
 * a hint the server cannot use costs nothing.
 */
import type { CursorParams } from '../../../shared/messages.js';
import { fromLspPosition } from './converters.js';
import type { ServerState } from './state.js';

/** Handles `reposhapley/cursor`. */
export function onCursor(state: ServerState) {
  return (params: CursorParams): void => {
    const uri = params?.textDocument?.uri;
    const position = fromLspPosition(params?.position);
    if (typeof uri !== 'string' || !position || state.lifecycle === 'shut-down') return;
    void state.engine?.prefill({ uri, ...position });
  };
}
