/**
 * `textDocument/completion`, for editors without inline completion: the completion as one
 * plain-text item. The list is incomplete, so clients ask again as the user types instead of
 * filtering a stale completion.
 *
 * The item replaces the word being typed with that word and the completion (`perim` ->
 * `perimeter(t)`), the shape language servers give: clients that filter items by the word at the
 * cursor as they see it (Emacs's eglot takes the symbol there, whatever the item's range) would
 * drop an item holding only the rest of the word (`eter(t)`), and offer nothing.
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

/** Identifier characters of any registered language right before the cursor: the word being typed. */
const WORD_BEFORE_CURSOR = /[\p{L}\p{N}_$]+$/u;

/** Longest word looked back for: identifiers are shorter, and a longer run is no word anyone types. */
const MAX_WORD_CHARS = 128;

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
    const word = wordBeforeCursor(state, uri, position);
    return { isIncomplete: true, items: [toCompletionItem(state, completion.text, completion.traceId, position, word)] };
  };
}

/** The word being typed at `position` ('' after a space, a bracket, an operator). */
function wordBeforeCursor(state: ServerState, uri: string, position: DomainPosition): string {
  const before = state.engine?.documents.textAround(uri, position, MAX_WORD_CHARS, 0)?.prefix ?? '';
  return WORD_BEFORE_CURSOR.exec(before)?.[0] ?? '';
}

function toCompletionItem(state: ServerState, text: string, traceId: string, position: DomainPosition, word: string): CompletionItem {
  const command = traceCommand(state, traceId);
  const wordStart = { line: position.line, character: position.character - word.length };
  return {
    label: completionLabel(word + text),
    kind: CompletionItemKind.Text,
    detail: 'RepoShapley',
    insertTextFormat: InsertTextFormat.PlainText,
    textEdit: { range: toLspRange(wordStart, position), newText: word + text },
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
