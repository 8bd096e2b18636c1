/**
 * The offer to download the configured model when the server says it is pullable
 * (`reposhapley/status` `pullable`): one information message per session at most, not in a
 * workspace where the user chose "Not now", never again after "Never". Pure: VS Code's
 * mementos, message and the download flow come in as ports, so it is tested without VS Code.
 */
import type { PullableModel, StatusParams } from '../../shared/messages.js';

/** The part of `vscode.Memento` the offer uses (workspaceState, globalState). */
export interface OfferMemento {
  get<T>(key: string): T | undefined;
  update(key: string, value: unknown): PromiseLike<void>;
}

/** What the offer needs from VS Code and the rest of the extension. */
export interface OfferPorts {
  /** "Not now" is remembered here (this workspace). */
  workspaceState: OfferMemento;
  /** "Never" is remembered here (every workspace). */
  globalState: OfferMemento;
  /** Shows an information message with these buttons; resolves with the one chosen, if any. */
  ask(message: string, ...choices: string[]): PromiseLike<string | undefined>;
  /** True while a download runs (started from the command): no offer then. */
  isDownloading(): boolean;
  /** Starts the download flow (progress, result messages). */
  download(model: PullableModel): void;
}

/** The buttons of the offer. */
export const OFFER_CHOICES = { download: 'Download', notNow: 'Not now', never: 'Never' } as const;

/** Memento key: the model names the user declined (a list, so another model is offered anew). */
export const DECLINED_KEY = 'reposhapley.declinedModelDownloads';

/** Offers the download of a pullable model at most once per session. */
export class ModelOffer {
  private offered = false;

  constructor(private readonly ports: OfferPorts) {}

  /** Looks at a server status; offers the download when it says a model is pullable. */
  async onStatus(status: StatusParams): Promise<void> {
    const model = status.pullable;
    if (!model || this.offered || this.ports.isDownloading() || this.isDeclined(model.name)) return;
    this.offered = true;
    const { download, notNow, never } = OFFER_CHOICES;
    const choice = await this.ports.ask(offerMessage(model, status), download, notNow, never);
    if (choice === download) this.ports.download(model);
    else if (choice === notNow) await remember(this.ports.workspaceState, model.name);
    else if (choice === never) await remember(this.ports.globalState, model.name);
  }

  private isDeclined(name: string): boolean {
    return declined(this.ports.workspaceState).includes(name) || declined(this.ports.globalState).includes(name);
  }
}

/** "RepoShapley: download Qwen2.5-Coder 0.5B (491 MB, Apache-2.0) for much better completions? …" */
export function offerMessage(model: PullableModel, status: Pick<StatusParams, 'model'>): string {
  const until = status.model?.fallback ? 'Until then a small fallback model is used.' : 'Until then there are no completions.';
  return `RepoShapley: download ${displayName(model.name)} (${Math.round(model.sizeBytes / 1e6)} MB, ${model.license}) for much better completions? ${until}`;
}

/** A catalog name as people write it: `qwen2.5-coder-0.5b` -> `Qwen2.5-Coder 0.5B`. */
export function displayName(name: string): string {
  const parts = name.split('-');
  const size = parts.length > 1 && /^\d+(\.\d+)?b$/i.test(parts.at(-1)!) ? ` ${parts.pop()!.toUpperCase()}` : '';
  return parts.map((part) => part.charAt(0).toUpperCase() + part.slice(1)).join('-') + size;
}

function declined(memento: OfferMemento): string[] {
  const value = memento.get<unknown>(DECLINED_KEY);
  return Array.isArray(value) ? value.filter((entry): entry is string => typeof entry === 'string') : [];
}

async function remember(memento: OfferMemento, name: string): Promise<void> {
  await memento.update(DECLINED_KEY, [...new Set([...declined(memento), name])]);
}
