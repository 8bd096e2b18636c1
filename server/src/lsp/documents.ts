/**
 * A light mirror of the open documents, kept by the LSP layer for what only it needs:
 * the completion cache key (text around the cursor), position validation and the document
 * version at request time. The engine keeps its own store (workspace/) for the pipeline;
 * both receive the same didOpen/didChange/didClose stream.
 */
import { TextDocument } from 'vscode-languageserver-textdocument';
import type { TextDocumentContentChangeEvent } from 'vscode-languageserver';
import type { DomainPosition } from './converters.js';

/** Text around a cursor, bounded on both sides. */
export interface CursorContext {
  prefix: string;
  suffix: string;
  version: number;
}

/** Characters of prefix / suffix that key the completion cache. */
export const CACHE_PREFIX_CHARS = 2_000;
export const CACHE_SUFFIX_CHARS = 500;

/** Open documents by URI. */
export class DocumentMirror {
  private readonly documents = new Map<string, TextDocument>();

  open(uri: string, languageId: string, version: number, text: string): void {
    this.documents.set(uri, TextDocument.create(uri, languageId, version, text));
  }

  /** Applies incremental or full changes; ignores documents that were never opened. */
  change(uri: string, changes: TextDocumentContentChangeEvent[], version: number): boolean {
    const document = this.documents.get(uri);
    if (!document) return false;
    this.documents.set(uri, TextDocument.update(document, changes, version));
    return true;
  }

  close(uri: string): void {
    this.documents.delete(uri);
  }

  has(uri: string): boolean {
    return this.documents.has(uri);
  }

  /** Current version of an open document. */
  version(uri: string): number | undefined {
    return this.documents.get(uri)?.version;
  }

  /**
   * The text around `position`, or undefined when the document is not open or the position
   * lies outside it (a line past the end, or a character past the end of its line).
   */
  cursorContext(uri: string, position: DomainPosition): CursorContext | undefined {
    const document = this.documents.get(uri);
    if (!document || !isInside(document, position)) return undefined;
    const offset = document.offsetAt(position);
    const text = document.getText();
    return {
      prefix: text.slice(Math.max(0, offset - CACHE_PREFIX_CHARS), offset),
      suffix: text.slice(offset, offset + CACHE_SUFFIX_CHARS),
      version: document.version,
    };
  }
}

/** Whether a position addresses a real place in the document (end of a line included). */
function isInside(document: TextDocument, position: DomainPosition): boolean {
  if (position.line >= document.lineCount) return false;
  const lineStart = document.offsetAt({ line: position.line, character: 0 });
  const nextLineStart = position.line + 1 < document.lineCount
    ? document.offsetAt({ line: position.line + 1, character: 0 })
    : document.getText().length;
  const lineText = document.getText().slice(lineStart, nextLineStart).replace(/\r?\n$|\r$/, '');
  return position.character <= lineText.length;
}
