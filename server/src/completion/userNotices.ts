/**
 * User-visible notices (a missing model, a model server that stopped answering), each said once:
 * the same message again reaches no listener, so an editor never shows it twice.
 */
import type { UserNotice } from './engine.js';

export class UserNotices {
  private readonly listeners: ((notice: UserNotice) => void)[] = [];
  private readonly sent = new Set<string>();

  onNotice(listener: (notice: UserNotice) => void): void {
    this.listeners.push(listener);
  }

  notify(notice: UserNotice): void {
    if (this.sent.has(notice.message)) return;
    this.sent.add(notice.message);
    for (const listener of this.listeners) listener(notice);
  }
}
