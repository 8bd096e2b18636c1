/**
 * The engine's view of open editor buffers: text and version by URI. Documents inside a
 * workspace root are also mirrored into the workspace index (which replaces their disk
 * content); documents outside every root (untitled buffers, files elsewhere) are completed
 * from their own text only.
 */
import { fileURLToPath } from 'node:url';
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
    for (const edit of edits) document.text = applyEdit(document.text, edit);
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

/** file: URI -> absolute path; other schemes have none. */
export function uriToPath(uri: string): string | undefined {
  if (!uri.startsWith('file:')) return undefined;
  try {
    return fileURLToPath(uri);
  } catch {
    return undefined;
  }
}

/** Apply one edit; out-of-range and reversed positions are clamped, never thrown. */
export function applyEdit(text: string, edit: DocumentEdit): string {
  if (!edit.range) return edit.text;
  let start = offsetAt(text, edit.range.start);
  let end = offsetAt(text, edit.range.end);
  if (end < start) [start, end] = [end, start];
  return text.slice(0, start) + edit.text + text.slice(end);
}

/** Offset of a (line, character) position, clamped into the text (UTF-16 code units, as LSP). */
export function offsetAt(text: string, position: { line: number; character: number }): number {
  let lineStart = 0;
  const line = Math.max(0, Math.floor(position.line) || 0);
  for (let i = 0; i < line; i++) {
    const next = text.indexOf('\n', lineStart);
    if (next === -1) return text.length;
    lineStart = next + 1;
  }
  let lineEnd = text.indexOf('\n', lineStart);
  if (lineEnd === -1) lineEnd = text.length;
  if (lineEnd > lineStart && text[lineEnd - 1] === '\r') lineEnd--;
  const character = Math.max(0, Math.floor(position.character) || 0);
  return Math.min(lineStart + character, lineEnd);
}
