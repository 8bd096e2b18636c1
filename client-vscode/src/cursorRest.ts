/**
 * When the cursor has come to rest, so the server can prefill the prompt there
 * (`reposhapley/cursor`, its `backgroundPrefill`). Typing moves the cursor too, but a keystroke
 * brings its own completion request, and a prefill started between keys would only hold the
 * model while the next request waits: so a cursor that moved within a moment of an edit to its
 * document is not reported. Pure (timers injected), so it is unit-tested without VS Code.
 */

import { CURSOR_REST_MS } from '../../shared/messages.js';

/** How long the cursor must stand still before it is reported. */
export const REST_MS = CURSOR_REST_MS;
/** A cursor move this soon after an edit to its document is the edit's (typing), not a jump. */
export const EDIT_QUIET_MS = 500;

export interface CursorAt {
  uri: string;
  line: number;
  character: number;
}

export interface RestTimers {
  now(): number;
  setTimeout(run: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export class CursorRest {
  private pending: unknown;
  private readonly lastEdit = new Map<string, number>();
  private lastSent?: string;

  constructor(private readonly send: (at: CursorAt) => void, private readonly timers: RestTimers) {}

  /** The document changed (typing, a paste, an undo). */
  edited(uri: string): void {
    this.lastEdit.set(uri, this.timers.now());
    this.cancel();
  }

  /** The cursor moved to `at` with nothing selected (a selection is not a place to complete). */
  moved(at: CursorAt): void {
    this.cancel();
    this.pending = this.timers.setTimeout(() => this.rested(at), REST_MS);
  }

  /** The document closed: forget it. */
  closed(uri: string): void {
    this.lastEdit.delete(uri);
  }

  dispose(): void {
    this.cancel();
  }

  private rested(at: CursorAt): void {
    this.pending = undefined;
    const edited = this.lastEdit.get(at.uri);
    if (edited !== undefined && this.timers.now() - edited < EDIT_QUIET_MS + REST_MS) return;
    const key = `${at.uri}:${at.line}:${at.character}`;
    if (key === this.lastSent) return; // back where it was: the server has it already
    this.lastSent = key;
    this.send(at);
  }

  private cancel(): void {
    if (this.pending !== undefined) this.timers.clearTimeout(this.pending);
    this.pending = undefined;
  }
}
