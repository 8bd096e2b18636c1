/**
 * Server status for the client: `reposhapley/status` notifications and user notices
 * (`window/showMessage`, each distinct message once).
 */
import { MessageType, ShowMessageNotification, type Connection } from 'vscode-languageserver/node';
import { StatusNotification, type StatusParams } from '../../../shared/messages.js';
import type { ModelStatus, UserNotice } from '../completion/engine.js';
import type { Logger } from '../util/logger.js';

const MESSAGE_TYPES: Record<UserNotice['severity'], MessageType> = {
  error: MessageType.Error,
  warning: MessageType.Warning,
  info: MessageType.Info,
};

/**
 * Sends status notifications and shows each user notice once. Remembers a missing model
 * across indexing passes, so "indexed" reads `no-model` until a completion succeeds. Every
 * status carries the engine's latest model status (the model in use, a pullable model).
 */
export class StatusReporter {
  private current: StatusParams = { state: 'indexing', message: 'starting' };
  private readonly shownNotices = new Set<string>();
  private missingModel: string | undefined;
  private modelStatus: ModelStatus = {};
  /**
   * Set from `initializationOptions.modelPullOffer`: the client offers the model download
   * itself, so a warning whose fix is that download is not shown as a message too.
   */
  clientOffersPull = false;

  constructor(private readonly connection: Connection, private readonly logger: Logger) {}

  /** The last state sent. */
  get state(): StatusParams['state'] {
    return this.current.state;
  }

  /** Indexing is running. */
  indexing(indexedFiles: number, message: string): void {
    this.send({ state: 'indexing', message, indexedFiles });
  }

  /** Indexing finished: `ready`, or `no-model` while no model is usable. */
  indexed(indexedFiles: number, message: string): void {
    if (this.missingModel !== undefined) this.send({ state: 'no-model', message: this.missingModel, indexedFiles });
    else this.send({ state: 'ready', message, indexedFiles });
  }

  /** The engine has no usable model; `message` says how to fix it. */
  modelMissing(message: string): void {
    this.missingModel = message;
    if (this.current.state !== 'no-model' || this.current.message !== message) this.send({ state: 'no-model', message });
  }

  /** A completion finished, so the model works; it may have waited for other windows' completions. */
  completed(lastLatencyMs: number | undefined, sharedWaitMs?: number): void {
    this.missingModel = undefined;
    if (this.current.state === 'indexing') return;
    const latency = lastLatencyMs === undefined ? {} : { lastLatencyMs: Math.round(lastLatencyMs) };
    const waited = sharedWaitMs ? { lastSharedWaitMs: Math.round(sharedWaitMs) } : {};
    this.send({ state: 'ready', message: 'ready', ...latency, ...waited });
  }

  /** A server-wide failure. */
  failed(message: string): void {
    this.send({ state: 'error', message });
  }

  /**
   * The model in use or the pullable model changed: the status is sent again with them. A model
   * that loaded (a pull finished) ends a `no-model` state.
   */
  modelChanged(status: ModelStatus): void {
    this.modelStatus = status;
    if (status.model) this.missingModel = undefined;
    if (status.model && this.current.state === 'no-model') this.send({ state: 'ready', message: `model ${status.model.label} loaded` });
    else this.send(this.current);
  }

  /** Shows a notice once per distinct severity+message and updates the status it implies. */
  notice(notice: UserNotice): void {
    const key = `${notice.severity}\u0000${notice.message}`;
    if (this.shownNotices.has(key)) return;
    this.shownNotices.add(key);
    this.logger.info(`notice (${notice.severity}): ${notice.message}`);
    if (!this.isOfferedByClient(notice)) this.showMessage(notice);
    if (notice.status === 'no-model') this.modelMissing(notice.message);
    else if (notice.status === 'error' || notice.severity === 'error') this.failed(notice.message);
    else this.send({ ...this.current, message: notice.message });
  }

  /** A warning whose fix is the download the client offers (the status's `pullable`). */
  private isOfferedByClient(notice: UserNotice): boolean {
    return this.clientOffersPull && notice.offersPull === true && notice.severity !== 'error';
  }

  private showMessage(notice: UserNotice): void {
    this.connection.sendNotification(ShowMessageNotification.type, { type: MESSAGE_TYPES[notice.severity], message: notice.message })
      .catch((error: unknown) => this.logger.debug(`showMessage not sent: ${String(error)}`));
  }

  /** Sends a status notification with the current model status (never throws: a closed connection only logs). */
  private send(state: StatusParams): void {
    const { model: _model, pullable: _pullable, modelServer: _modelServer, ...rest } = state;
    const params: StatusParams = { ...rest, ...this.modelStatus };
    this.current = params;
    this.connection.sendNotification(StatusNotification, params).catch((error: unknown) => {
      this.logger.debug(`status notification not sent: ${String(error)}`);
    });
  }
}
