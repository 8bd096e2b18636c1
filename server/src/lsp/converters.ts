/**
 * LSP <-> domain converters. Pure functions: no connection, no state.
 * Positions stay 0-based lines and UTF-16 characters on both sides (LSP's default encoding).
 */
import type {
  FileEvent, Position, Range, TextDocumentContentChangeEvent,
} from 'vscode-languageserver';
import type { DocumentEdit, WatchedFileEvent } from '../completion/engine.js';

/** The part of an LSP CancellationToken the server uses (structurally compatible with it). */
export interface CancellationLike {
  readonly isCancellationRequested: boolean;
  onCancellationRequested(listener: () => void): { dispose(): void };
}

/** A domain position: 0-based line and UTF-16 character. */
export interface DomainPosition {
  line: number;
  character: number;
}

/** An AbortSignal that follows a cancellation token, and how to stop following it. */
export interface CancellationBridge {
  signal: AbortSignal;
  dispose(): void;
}

/** Converts an LSP cancellation token into an AbortSignal (the one place this happens). */
export function toAbortSignal(token: CancellationLike): CancellationBridge {
  const controller = new AbortController();
  if (token.isCancellationRequested) {
    controller.abort(new Error('cancelled by the client'));
    return { signal: controller.signal, dispose: () => {} };
  }
  const subscription = token.onCancellationRequested(() => controller.abort(new Error('cancelled by the client')));
  return { signal: controller.signal, dispose: () => subscription.dispose() };
}

/** LSP position -> domain position; rejects what is not a pair of non-negative integers. */
export function fromLspPosition(position: unknown): DomainPosition | undefined {
  if (typeof position !== 'object' || position === null) return undefined;
  const { line, character } = position as Partial<Position>;
  if (!isNonNegativeInteger(line) || !isNonNegativeInteger(character)) return undefined;
  return { line, character };
}

/** Domain position -> LSP position. */
export function toLspPosition(position: DomainPosition): Position {
  return { line: position.line, character: position.character };
}

/** A range from `start` to `end` (an empty range at `start` when `end` is omitted). */
export function toLspRange(start: DomainPosition, end: DomainPosition = start): Range {
  return { start: toLspPosition(start), end: toLspPosition(end) };
}

/**
 * Whether a `didOpen` document has a string uri and text. A buffer whose text is not a string
 * would break every later pass over the open buffers (indexing included), so it is never opened.
 */
export function isOpenableDocument(value: unknown): value is { uri: string; languageId: string; version: number; text: string } {
  if (typeof value !== 'object' || value === null) return false;
  const { uri, text } = value as Record<string, unknown>;
  return typeof uri === 'string' && typeof text === 'string';
}

/**
 * Whether a content change is one LSP allows: string text, and either no range (whole text) or a
 * range of two non-negative integer positions. The mirror and the engine each apply a change
 * list in place, so one malformed change must reject the whole list before either starts.
 */
export function isContentChange(change: unknown): change is TextDocumentContentChangeEvent {
  if (typeof change !== 'object' || change === null) return false;
  const { text, range, rangeLength } = change as Record<string, unknown>;
  if (typeof text !== 'string' || (rangeLength !== undefined && typeof rangeLength !== 'number')) return false;
  if (range === undefined) return rangeLength === undefined;
  if (typeof range !== 'object' || range === null) return false;
  const { start, end } = range as Record<string, unknown>;
  return fromLspPosition(start) !== undefined && fromLspPosition(end) !== undefined;
}

/** Incremental (or full) LSP content changes -> domain edits, in order. */
export function fromLspEdits(changes: readonly TextDocumentContentChangeEvent[]): DocumentEdit[] {
  return changes.map((change) => {
    if ('range' in change && change.range) {
      return { range: { start: { ...change.range.start }, end: { ...change.range.end } }, text: change.text };
    }
    return { text: change.text };
  });
}

const FILE_CHANGE_TYPES: Record<number, WatchedFileEvent['type']> = { 1: 'created', 2: 'changed', 3: 'deleted' };

/** LSP watched-file events -> domain events; unknown change types and malformed events are dropped. */
export function fromLspFileEvents(events: readonly FileEvent[]): WatchedFileEvent[] {
  const result: WatchedFileEvent[] = [];
  for (const event of events as readonly unknown[]) {
    if (typeof event !== 'object' || event === null) continue;
    const { uri, type: code } = event as { uri?: unknown; type?: unknown };
    const type = typeof code === 'number' ? FILE_CHANGE_TYPES[code] : undefined;
    if (type && typeof uri === 'string') result.push({ uri, type });
  }
  return result;
}

export { uriToPath } from '../workspace/paths.js';

/** textDocument/inlineCompletion trigger kind (1 = Invoked, 2 = Automatic) -> domain trigger. */
export function fromInlineTriggerKind(kind: number | undefined): 'automatic' | 'invoked' {
  return kind === 1 ? 'invoked' : 'automatic';
}

/** textDocument/completion trigger kind (1 = Invoked; 2, 3 = typing) -> domain trigger. */
export function fromCompletionTriggerKind(kind: number | undefined): 'automatic' | 'invoked' {
  return kind === 1 ? 'invoked' : 'automatic';
}

function isNonNegativeInteger(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0;
}
