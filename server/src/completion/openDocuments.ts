/**
 * The server's one store of open editor documents: text, lines and version by URI. Every
 * didOpen/didChange/didClose lands here once; an edit is applied once (textEdits.applyEdits),
 * and the workspace index takes the result for its own derived state (tree, chunks) instead of
 * applying the edit again. The LSP layer reads the same documents through {@link DocumentView}
 * (cache keys, position checks, the version a completion was made for).
 *
 * Documents inside a workspace root are also laid over the workspace index (replacing their
 * disk content); documents outside every root (untitled buffers, files elsewhere) are
 * completed from their own text only.
 */
import { languageOfEditorId, languageOfFileName, type LanguageId } from '../../../shared/languages.js';
import { applyEdits, clampedOffset, splitLines, type DocumentChange, type DocumentEdit } from '../indexing/textEdits.js';
import { uriToPath } from '../workspace/paths.js';

export interface OpenDocument {
  readonly uri: string;
  /** Absolute path for file: URIs. */
  readonly absPath?: string;
  /**
   * Its language: the file name's, else the editor's `languageId` (an untitled buffer), when the
   * server knows it; undefined for other documents, which are completed without language rules.
   */
  readonly languageId?: LanguageId;
  text: string;
  /** `splitLines(text)`: lines without terminators, only `\n` ending a line (as the index counts them). */
  lines: string[];
  version: number;
}

/** Text on both sides of a cursor, bounded, and the document version it was read at. */
export interface TextAround {
  prefix: string;
  suffix: string;
  version: number;
}

/** What the LSP layer may read of the open documents. */
export interface DocumentView {
  has(uri: string): boolean;
  /** Current version of an open document. */
  version(uri: string): number | undefined;
  /**
   * Up to `before` characters before the position and `after` after it, or undefined when the
   * document is not open or the position lies outside it (a line past the end, or a character
   * past the end of its line).
   */
  textAround(uri: string, position: { line: number; character: number }, before: number, after: number): TextAround | undefined;
}

/** Open documents by URI. */
export class OpenDocuments implements DocumentView {
  private readonly documents = new Map<string, OpenDocument>();

  /** Open a document, or replace its text and version (a repeated didOpen). */
  open(uri: string, text: string, version: number, editorLanguageId?: string): OpenDocument {
    const absPath = uriToPath(uri);
    const languageId = languageOfFileName(absPath ?? uri) ?? (editorLanguageId === undefined ? undefined : languageOfEditorId(editorLanguageId));
    const document: OpenDocument = { uri, absPath, text, lines: splitLines(text), version, ...(languageId ? { languageId } : {}) };
    this.documents.set(uri, document);
    return document;
  }

  /** Apply LSP incremental edits in order; undefined for a document never opened. */
  change(uri: string, edits: readonly DocumentEdit[], version: number): { document: OpenDocument; change: DocumentChange } | undefined {
    const document = this.documents.get(uri);
    if (!document) return undefined;
    const change = applyEdits(document, edits);
    document.text = change.text;
    document.lines = change.lines;
    document.version = version;
    return { document, change };
  }

  close(uri: string): OpenDocument | undefined {
    const document = this.documents.get(uri);
    this.documents.delete(uri);
    return document;
  }

  get(uri: string): OpenDocument | undefined {
    return this.documents.get(uri);
  }

  has(uri: string): boolean {
    return this.documents.has(uri);
  }

  /** The URIs of the open documents, in the order they were opened. */
  uris(): string[] {
    return [...this.documents.keys()];
  }

  version(uri: string): number | undefined {
    return this.documents.get(uri)?.version;
  }

  textAround(uri: string, position: { line: number; character: number }, before: number, after: number): TextAround | undefined {
    const document = this.documents.get(uri);
    if (!document || !isInside(document, position)) return undefined;
    const offset = clampedOffset(document.text, position);
    return {
      prefix: document.text.slice(Math.max(0, offset - before), offset),
      suffix: document.text.slice(offset, offset + after),
      version: document.version,
    };
  }
}

/** Whether a position addresses a real place in the document (the end of a line included). */
function isInside(document: OpenDocument, position: { line: number; character: number }): boolean {
  const line = document.lines[position.line];
  return line !== undefined && position.character >= 0 && position.character <= line.length;
}
