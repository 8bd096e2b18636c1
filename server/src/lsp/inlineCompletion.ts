/**
 * `textDocument/inlineCompletion`: the completion as one ghost-text item at the cursor.
 * Any non-ok outcome (cancelled, superseded, no model, unknown document) is an empty list.
 */
import type {
  CancellationToken, InlineCompletionItem, InlineCompletionList, InlineCompletionParams,
} from 'vscode-languageserver/node';
import { completeAtCursor, completionModeOf, traceCommand } from './completeAtCursor.js';
import { fromInlineTriggerKind, fromLspPosition, toLspRange } from './converters.js';
import type { ServerState } from './state.js';

/** The answer when there is nothing to offer. */
export function emptyInlineList(): InlineCompletionList {
  return { items: [] };
}

/** Handles `textDocument/inlineCompletion`. */
export function onInlineCompletion(state: ServerState) {
  return async (params: InlineCompletionParams, token: CancellationToken): Promise<InlineCompletionList> => {
    const uri = params?.textDocument?.uri;
    const position = fromLspPosition(params?.position);
    if (typeof uri !== 'string' || !position) return emptyInlineList();
    const trigger = fromInlineTriggerKind(params.context?.triggerKind);
    const mode = completionModeOf(params);
    const completion = await completeAtCursor(state, { uri, position, trigger, mode }, token);
    if (!completion || completion.text.length === 0) return emptyInlineList();
    const item: InlineCompletionItem = { insertText: completion.text, range: toLspRange(position) };
    const command = traceCommand(state, completion.traceId);
    return { items: [command ? { ...item, command } : item] };
  };
}
