/**
 * `textDocument/completion`, for editors without inline completion: the completion as one
 * plain-text item inserted at the cursor. The list is incomplete, so clients ask again as the
 * user types instead of filtering a stale completion.
 */
import {
  CompletionItemKind, InsertTextFormat,
  type CancellationToken, type CompletionItem, type CompletionList, type CompletionParams,
} from 'vscode-languageserver/node';
import { completeAtCursor, traceCommand } from './completeAtCursor.js';
import { fromCompletionTriggerKind, fromLspPosition, toLspRange, type DomainPosition } from './converters.js';
import type { ServerState } from './state.js';

/** Longest label shown in a completion menu. */
export const MAX_LABEL_CHARS = 60;

/** The answer when there is nothing to offer. */
export function emptyCompletionList(): CompletionList {
  return { isIncomplete: true, items: [] };
}

/** Handles `textDocument/completion`. */
export function onCompletion(state: ServerState) {
  return async (params: CompletionParams, token: CancellationToken): Promise<CompletionList> => {
    const uri = params?.textDocument?.uri;
    const position = fromLspPosition(params?.position);
    if (typeof uri !== 'string' || !position) return emptyCompletionList();
    const trigger = fromCompletionTriggerKind(params.context?.triggerKind);
    const completion = await completeAtCursor(state, { uri, position, trigger }, token);
    if (!completion || completion.text.length === 0) return emptyCompletionList();
    return { isIncomplete: true, items: [toCompletionItem(state, completion.text, completion.traceId, position)] };
  };
}

function toCompletionItem(state: ServerState, text: string, traceId: string, position: DomainPosition): CompletionItem {
  const command = traceCommand(state, traceId);
  return {
    label: completionLabel(text),
    kind: CompletionItemKind.Text,
    detail: 'RepoShapley',
    insertTextFormat: InsertTextFormat.PlainText,
    textEdit: { range: toLspRange(position), newText: text },
    sortText: '0',
    preselect: true,
    data: { traceId },
    ...(command ? { command } : {}),
  };
}

/** The first non-blank line of a completion, trimmed and shortened to {@link MAX_LABEL_CHARS}. */
export function completionLabel(text: string): string {
  const line = text.split(/\r?\n/).find((candidate) => candidate.trim().length > 0)?.trim() ?? text.trim();
  return line.length > MAX_LABEL_CHARS ? `${line.slice(0, MAX_LABEL_CHARS - 1)}…` : line;
}
