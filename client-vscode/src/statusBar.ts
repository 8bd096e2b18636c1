/** The status bar item: shows presentStatus() of the current ClientStatus. */
import * as vscode from 'vscode';
import type { StatusParams } from '../../shared/messages.js';
import { presentStatus, withServerStatus, type ClientStatus } from './statusView.js';

export class StatusBar implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem('reposhapley.status', vscode.StatusBarAlignment.Right, 100);
  private status: ClientStatus;

  constructor(enabled: boolean) {
    this.item.name = 'RepoShapley';
    this.status = { process: 'starting', enabled };
    this.render();
    this.item.show();
  }

  starting(): void {
    this.update({ process: 'starting', enabled: this.status.enabled });
  }

  stopped(reason: string): void {
    this.update({ ...this.status, process: 'stopped', stopReason: reason });
  }

  server(params: StatusParams): void {
    this.update(withServerStatus(this.status, params));
  }

  enabled(enabled: boolean): void {
    this.update({ ...this.status, enabled });
  }

  dispose(): void {
    this.item.dispose();
  }

  private update(status: ClientStatus): void {
    this.status = status;
    this.render();
  }

  private render(): void {
    const view = presentStatus(this.status);
    this.item.text = view.text;
    this.item.tooltip = view.tooltip;
    this.item.accessibilityInformation = { label: view.label };
    this.item.command = view.command;
    this.item.backgroundColor = view.severity === 'normal' ? undefined : new vscode.ThemeColor(`statusBarItem.${view.severity}Background`);
  }
}
