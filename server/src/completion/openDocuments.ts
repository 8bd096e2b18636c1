/**
 * The engine's view of open editor buffers: text and version by URI. Documents inside a
 * workspace root are also mirrored into the workspace index (which replaces their disk
 * content); documents outside every root (untitled buffers, files elsewhere) are completed
 * from their own text only.
 */
import { applyDocumentEdit } from '../indexing/textEdits.js';
import { uriToPath } from '../workspace/paths.js';
import type { DocumentEdit } from './engine.js';

export interface OpenDocument {
  uri: string;
  /** Absolute path for file: URIs. */
  absPath?: string;
  text: string;
  version: number;
}

export class OpenDocuments {
  private readonly documents = new Map<string, OpenDocument>();

  open(uri: string, text: string, version: number): OpenDocument {
    const document = { uri, absPath: uriToPath(uri), text, version };
    this.documents.set(uri, document);
    return document;
  }

  /** Apply LSP incremental edits in order; returns undefined for a document never opened. */
  change(uri: string, edits: readonly DocumentEdit[], version: number): OpenDocument | undefined {
    const document = this.documents.get(uri);
    if (!document) return undefined;
    for (const edit of edits) document.text = applyDocumentEdit(document.text, edit).text;
    document.version = version;
    return document;
  }

  close(uri: string): OpenDocument | undefined {
    const document = this.documents.get(uri);
    this.documents.delete(uri);
    return document;
  }

  get(uri: string): OpenDocument | undefined {
    return this.documents.get(uri);
  }
}
