/**
 * "Why this completion?": asks the server for a trace and shows it as a read-only Markdown
 * document (a content provider, so closing it never asks to save).
 */
import * as vscode from 'vscode';
import type { CompletionTrace } from '../../shared/messages.js';
import { renderNoTrace, renderTrace } from './traceView.js';

export const TRACE_SCHEME = 'reposhapley-trace';

export class TraceDocuments implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly contents = new Map<string, string>();
  private readonly registration = vscode.workspace.registerTextDocumentContentProvider(TRACE_SCHEME, this);
  private shown = 0;

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.contents.get(uri.toString()) ?? renderNoTrace('This trace is no longer available.');
  }

  /** Shows a trace, or why there is none, beside the editor. */
  async show(trace: CompletionTrace | null | undefined): Promise<void> {
    const text = trace ? renderTrace(trace)
      : trace === null ? renderNoTrace('The server has no completion to explain yet: type in a Python, JavaScript, TypeScript, Go or Rust file until a completion appears.')
      : renderNoTrace('The RepoShapley server is not running. Run "RepoShapley: Restart Server".');
    // A new URI per request, so an open tab never shows stale text; keep the last few.
    const uri = vscode.Uri.parse(`${TRACE_SCHEME}:/why-${++this.shown}.md`);
    this.contents.set(uri.toString(), text);
    if (this.contents.size > 5) this.contents.delete(this.contents.keys().next().value!);
    const document = await vscode.workspace.openTextDocument(uri);
    await vscode.window.showTextDocument(document, { viewColumn: vscode.ViewColumn.Beside, preview: true, preserveFocus: true });
  }

  dispose(): void {
    this.registration.dispose();
  }
}
