/**
 * The RepoShapley VS Code extension: starts the language server (ghost-text completions come
 * from vscode-languageclient's built-in inline completion support), mirrors its status in the
 * status bar, offers the download of a model the server says is pullable, and wires the
 * commands. Everything of substance happens in the server (it also does the downloading).
 */
import * as vscode from 'vscode';
import { COMPLETED_EDITOR_IDS } from '../../shared/languages.js';
import type { PullableModel } from '../../shared/messages.js';
import { SECTION } from './configuration.js';
import { CursorRest } from './cursorRest.js';
import { ModelDownload } from './modelDownload.js';
import { ModelOffer } from './modelOffer.js';
import { ACCEPT_COMMAND, ServerSession } from './session.js';
import { StatusBar } from './statusBar.js';
import { COMMANDS } from './statusView.js';
import { TraceDocuments } from './traceDocument.js';

let session: ServerSession | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const output = vscode.window.createOutputChannel('RepoShapley', { log: true });
  const statusBar = new StatusBar(isEnabled());
  const traces = new TraceDocuments();
  let lastTraceId: string | undefined;
  let pullable: PullableModel | undefined;
  session = new ServerSession(context.extensionPath, output, {
    starting: () => statusBar.starting(),
    stopped: (reason) => statusBar.stopped(reason),
    status: (params) => {
      statusBar.server(params);
      pullable = params.pullable;
      void offer.onStatus(params);
    },
    offered: (traceId) => { lastTraceId = traceId; },
  });
  const current = session;
  const download = modelDownload(current);
  const offer = new ModelOffer({
    workspaceState: context.workspaceState,
    globalState: context.globalState,
    ask: (message, ...choices) => vscode.window.showInformationMessage(message, ...choices),
    isDownloading: () => download.isRunning,
    download: (model) => void download.run(model.name),
  });
  const rest = new CursorRest((at) => current.cursorRested(at), { now: () => Date.now(), setTimeout, clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout) });
  context.subscriptions.push(
    output, statusBar, traces, { dispose: () => rest.dispose() },
    // The cursor at rest in a completed file: the server prefills the prompt there (backgroundPrefill).
    vscode.window.onDidChangeTextEditorSelection((event) => {
      const selection = event.selections[0];
      if (event.selections.length !== 1 || !selection?.isEmpty || !isCompletable(event.textEditor.document)) return;
      rest.moved({ uri: event.textEditor.document.uri.toString(), line: selection.active.line, character: selection.active.character });
    }),
    vscode.workspace.onDidChangeTextDocument((event) => rest.edited(event.document.uri.toString())),
    vscode.workspace.onDidCloseTextDocument((document) => rest.closed(document.uri.toString())),
    vscode.commands.registerCommand(COMMANDS.toggle, toggleCompletions),
    vscode.commands.registerCommand(COMMANDS.restart, () => current.restart()),
    vscode.commands.registerCommand(COMMANDS.showTrace, async () => traces.show(await current.trace(lastTraceId))),
    vscode.commands.registerCommand(COMMANDS.showLog, () => output.show()),
    vscode.commands.registerCommand(COMMANDS.downloadModel, () => download.run(pullable?.name)),
    vscode.commands.registerCommand(COMMANDS.openModelSetting, () => vscode.commands.executeCommand('workbench.action.openSettings', `${SECTION}.modelPath`)),
    vscode.commands.registerCommand(ACCEPT_COMMAND, (traceId: unknown) => { if (typeof traceId === 'string') lastTraceId = traceId; }),
    vscode.workspace.onDidChangeConfiguration((event) => {
      if (!event.affectsConfiguration(SECTION)) return;
      statusBar.enabled(isEnabled());
      if (event.affectsConfiguration(`${SECTION}.serverPath`)) void current.restart();
      else void current.sendSettings();
    }),
  );
  void current.start();
}

export async function deactivate(): Promise<void> {
  await session?.stop();
  session = undefined;
}

/** The download flow on VS Code's progress notification and messages, through the session. */
function modelDownload(current: ServerSession): ModelDownload<vscode.CancellationToken> {
  return new ModelDownload<vscode.CancellationToken>({
    withProgress: (title, task) => vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title, cancellable: true },
      (progress, token) => task((step) => progress.report(step), token),
    ),
    pull: (name, onProgress, token) => current.pullModel(name, onProgress, token),
    info: (message) => void vscode.window.showInformationMessage(message),
    error: (message, ...choices) => vscode.window.showErrorMessage(message, ...choices),
  });
}

/** The documents the server completes (its document selector: files on disk in a language it knows). */
function isCompletable(document: vscode.TextDocument): boolean {
  return document.uri.scheme === 'file' && COMPLETED_EDITOR_IDS.includes(document.languageId);
}

function isEnabled(): boolean {
  return vscode.workspace.getConfiguration(SECTION).get<boolean>('enabled', true);
}

/** Flips `reposhapley.enabled` where it is set (workspace if it is set there, else user). */
async function toggleCompletions(): Promise<void> {
  const config = vscode.workspace.getConfiguration(SECTION);
  const inspected = config.inspect<boolean>('enabled');
  const target = inspected?.workspaceValue !== undefined ? vscode.ConfigurationTarget.Workspace : vscode.ConfigurationTarget.Global;
  const enabled = !config.get<boolean>('enabled', true);
  await config.update('enabled', enabled, target);
  void vscode.window.setStatusBarMessage(`RepoShapley completions ${enabled ? 'on' : 'off'}`, 3000);
}
