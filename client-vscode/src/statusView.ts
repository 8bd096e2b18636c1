/**
 * What the status bar item shows for a client state: pure, so it is tested without VS Code.
 * The server's `reposhapley/status` says indexing / ready / no-model / error; the client adds
 * what only it knows (starting, stopped, completions switched off).
 */
import type { StatusParams } from '../../shared/messages.js';

/** Everything the status bar reflects. */
export interface ClientStatus {
  /** The client's view of the server process. */
  process: 'starting' | 'running' | 'stopped';
  /** Why the process stopped, when it did not stop on request. */
  stopReason?: string;
  /** The latest `reposhapley/status` from the server. */
  server?: StatusParams;
  /** Latency of the last completion, kept across status messages that omit it. */
  lastLatencyMs?: number;
  /** Of that latency, the wait for other windows' completions (a shared model); undefined: none. */
  lastSharedWaitMs?: number;
  /** The `reposhapley.enabled` setting. */
  enabled: boolean;
}

/** Commands a click on the item runs (ids from package.json). */
export const COMMANDS = {
  toggle: 'reposhapley.toggleCompletions',
  restart: 'reposhapley.restartServer',
  showTrace: 'reposhapley.showCompletionTrace',
  showLog: 'reposhapley.showLog',
  openModelSetting: 'reposhapley.openModelSetting',
  downloadModel: 'reposhapley.downloadModel',
} as const;

/** The item's text, tooltip, accessible label, click command and whether it shows an error. */
export interface StatusPresentation {
  text: string;
  tooltip: string;
  /** Screen readers, and the end-to-end test, read this: `RepoShapley: <state>`. */
  label: string;
  command: string;
  severity: 'normal' | 'warning' | 'error';
}

const NAME = 'RepoShapley';

/** The presentation of a client status. */
export function presentStatus(status: ClientStatus): StatusPresentation {
  if (status.process === 'stopped') {
    return show('stopped', '$(error)', `stopped: ${status.stopReason ?? 'not running'}. Click to restart.`, COMMANDS.restart, 'error');
  }
  if (status.process === 'starting' || !status.server) return show('starting', '$(sync~spin)', 'starting the server', COMMANDS.showLog);
  const { server } = status;
  switch (server.state) {
    case 'indexing': {
      const files = server.indexedFiles === undefined ? '' : ` ${server.indexedFiles} files`;
      return show('indexing', '$(sync~spin)', `indexing the workspace: ${server.message}`, COMMANDS.showLog, 'normal', files);
    }
    case 'no-model':
      if (server.modelServer) {
        return show('model server not answering', '$(debug-disconnect)', `${server.message} Click for the server log.`, COMMANDS.showLog, 'warning', ': server down');
      }
      if (server.pullable) return show('no model', '$(warning)', `${server.message} ${downloadHint(server.pullable)}`, COMMANDS.downloadModel, 'warning', ': no model');
      return show('no model', '$(warning)', `${server.message} Click to set reposhapley.modelPath.`, COMMANDS.openModelSetting, 'warning', ': no model');
    case 'error':
      return show('error', '$(error)', `${server.message} Click for the server log.`, COMMANDS.showLog, 'error');
    case 'ready':
      if (!status.enabled) return show('disabled', '$(circle-slash)', 'completions are off. Click to turn them on.', COMMANDS.toggle);
      if (server.model?.fallback) return showFallback(server, status.lastLatencyMs);
      return show('ready', '$(check)', readyTooltip(server, status), COMMANDS.showTrace, 'normal', latency(status.lastLatencyMs));
  }
}

function show(
  state: string, icon: string, detail: string, command: string, severity: StatusPresentation['severity'] = 'normal', suffix = '',
): StatusPresentation {
  return { text: `${icon} ${NAME}${suffix}`, tooltip: `${NAME}: ${detail}`, label: `${NAME}: ${state}`, command, severity };
}

/** Ready, but on the small bundled model: says so, and how to get the one asked for. */
function showFallback(server: StatusParams, lastLatencyMs: number | undefined): StatusPresentation {
  const using = `ready, on the small fallback model (${server.model?.label})`;
  if (server.pullable) {
    const detail = `${using} because ${server.pullable.name} is not downloaded yet. ${downloadHint(server.pullable)}`;
    return show('ready (fallback model)', '$(check)', detail, COMMANDS.downloadModel, 'normal', ` (fallback model)${latency(lastLatencyMs)}`);
  }
  const detail = `${using} because the model asked for could not be loaded, or its process stopped (llama.cpp aborted on it). Click for the server log, which says why.`;
  return show('ready (fallback model)', '$(check)', detail, COMMANDS.showLog, 'normal', ` (fallback model)${latency(lastLatencyMs)}`);
}

function downloadHint(model: NonNullable<StatusParams['pullable']>): string {
  return `Click (or run "RepoShapley: Download Model") to download it (${Math.round(model.sizeBytes / 1e6)} MB, ${model.license}).`;
}

function latency(ms: number | undefined): string {
  return ms === undefined ? '' : ` ${Math.round(ms)} ms`;
}

function readyTooltip(server: StatusParams, { lastLatencyMs, lastSharedWaitMs }: ClientStatus): string {
  const files = server.indexedFiles === undefined ? '' : ` (${server.indexedFiles} files indexed)`;
  const shared = lastSharedWaitMs ? `, ${Math.round(lastSharedWaitMs)} ms of it waiting for another window's completion (one model serves them all)` : '';
  const last = lastLatencyMs === undefined ? '' : `; last completion ${Math.round(lastLatencyMs)} ms${shared}`;
  const model = server.model ? ` Model ${server.model.chosenBy ?? server.model.label}.` : '';
  return `ready${files}${last}.${model} Click to see why the last completion was made.`;
}

/** Folds a server status into the client status (latency and file counts persist). */
export function withServerStatus(status: ClientStatus, server: StatusParams): ClientStatus {
  const indexedFiles = server.indexedFiles ?? status.server?.indexedFiles;
  return {
    ...status,
    process: 'running',
    server: indexedFiles === undefined ? server : { ...server, indexedFiles },
    lastLatencyMs: server.lastLatencyMs ?? status.lastLatencyMs,
    // Each completion's status says whether it waited: absent means it did not.
    lastSharedWaitMs: server.lastLatencyMs === undefined ? status.lastSharedWaitMs : server.lastSharedWaitMs,
  };
}
