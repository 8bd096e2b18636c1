/**
 * The RepoShapley VS Code extension: starts the language server (ghost-text completions come
 * from vscode-languageclient's built-in inline completion support), mirrors its status in the
 * status bar, and wires four commands. Everything of substance happens in the server.
 */
import * as vscode from 'vscode';
import { SECTION } from './configuration.js';
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
  session = new ServerSession(context.extensionPath, output, {
    starting: () => statusBar.starting(),
    stopped: (reason) => statusBar.stopped(reason),
    status: (params) => statusBar.server(params),
    offered: (traceId) => { lastTraceId = traceId; },
  });
  const current = session;
  context.subscriptions.push(
    output, statusBar, traces,
    vscode.commands.registerCommand(COMMANDS.toggle, toggleCompletions),
    vscode.commands.registerCommand(COMMANDS.restart, () => current.restart()),
    vscode.commands.registerCommand(COMMANDS.showTrace, async () => traces.show(await current.trace(lastTraceId))),
    vscode.commands.registerCommand(COMMANDS.showLog, () => output.show()),
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
