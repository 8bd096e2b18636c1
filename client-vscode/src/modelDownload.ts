/**
 * The model download as the user sees it: a cancellable progress notification fed by the
 * server's work-done progress on `reposhapley/pullModel`, then one message: ready (no restart:
 * the server loads the model itself), or the server's one-line error with Retry. One download
 * at a time: starting another while one runs joins it. Pure: VS Code and the session come in as
 * ports, so it is tested without VS Code.
 */
import type { PullModelResult } from '../../shared/messages.js';
import { displayName } from './modelOffer.js';

/** One `$/progress` value of LSP work-done progress (begin, report or end). */
export interface WorkDoneValue {
  kind: 'begin' | 'report' | 'end';
  message?: string;
  percentage?: number;
}

/** What `vscode.Progress.report` takes. */
export interface ProgressStep {
  message?: string;
  increment?: number;
}

/** The part of a cancellation token the flow passes on. */
export interface CancelToken {
  readonly isCancellationRequested: boolean;
}

/** What the flow needs from VS Code and the session; `Token` is the notification's cancellation token. */
export interface DownloadPorts<Token extends CancelToken = CancelToken> {
  /** Runs `task` under a cancellable progress notification titled `title`. */
  withProgress<T>(title: string, task: (report: (step: ProgressStep) => void, token: Token) => PromiseLike<T>): PromiseLike<T>;
  /** Sends the pull request (cancelled with `token`), forwarding the server's progress; undefined when no server runs. */
  pull(name: string | undefined, onProgress: (value: WorkDoneValue) => void, token: Token): PromiseLike<PullModelResult | undefined>;
  info(message: string): void;
  /** Shows an error message with buttons; resolves with the one chosen, if any. */
  error(message: string, ...choices: string[]): PromiseLike<string | undefined>;
}

/** The button that runs the download again after a failure. */
export const RETRY = 'Retry';

/** The download flow; `run` starts it or joins the one running. */
export class ModelDownload<Token extends CancelToken = CancelToken> {
  private running: Promise<PullModelResult | undefined> | undefined;

  constructor(private readonly ports: DownloadPorts<Token>) {}

  /** True while a download runs. */
  get isRunning(): boolean {
    return this.running !== undefined;
  }

  /** Downloads `name` (default: the server's `model` setting); resolves when its message is shown. */
  async run(name?: string): Promise<void> {
    const joined = this.running !== undefined;
    this.running ??= this.download(name).finally(() => { this.running = undefined; });
    const result = await this.running;
    if (!joined) await this.announce(result, name);
  }

  private download(name: string | undefined): Promise<PullModelResult | undefined> {
    const title = `RepoShapley: downloading ${name ? displayName(name) : 'the model'}`;
    return Promise.resolve(this.ports.withProgress(title, (report, token) => this.ports.pull(name, progressSteps(report), token)));
  }

  /** One message for the outcome; a failure offers Retry (outside the running download, so a dismissed message blocks nothing). */
  private async announce(result: PullModelResult | undefined, name: string | undefined): Promise<void> {
    if (result?.kind === 'ok') {
      this.ports.info(result.inUse
        ? `RepoShapley: ${displayName(result.name)} is ready; completions use it now.`
        : `RepoShapley: ${displayName(result.name)} is downloaded (${result.path}), but completions do not use it: ` +
          'reposhapley.modelPath or REPOSHAPLEY_MODEL is set, reposhapley.model names another model, or it failed to load ' +
          '(see Output › RepoShapley).');
      return;
    }
    if (result?.code === 'cancelled') return;
    const why = result ? result.message : 'the server is not running; start it with "RepoShapley: Restart Server"';
    if (await this.ports.error(`RepoShapley: the model download failed: ${why}`, RETRY) === RETRY) await this.run(name);
  }
}

/**
 * Work-done progress -> notification progress steps. VS Code's bar takes increments, so each
 * step carries the rise since the last percentage shown (the server's percentage only rises).
 */
export function progressSteps(report: (step: ProgressStep) => void): (value: WorkDoneValue) => void {
  let shown = 0;
  return (value) => {
    if (value.kind === 'end') return;
    const rise = value.percentage !== undefined && value.percentage > shown ? value.percentage - shown : 0;
    shown += rise;
    const step: ProgressStep = {};
    if (value.message) step.message = value.message;
    if (rise > 0) step.increment = rise;
    if (step.message !== undefined || step.increment !== undefined) report(step);
  };
}
