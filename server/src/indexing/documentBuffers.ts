/**
 * Editor buffers of open documents. Only these keep a tree-sitter tree between updates (for
 * incremental reparse); disk files are parsed, extracted and their tree freed at once, so WASM
 * memory grows with the open documents, not with the workspace.
 */
import type { DocumentLocation } from './documentLocation.js';
import type { SyntaxParser, Tree } from '../languages/syntaxTree.js';
import { createStatementCache, type StatementCache } from './symbols.js';
import { splitLines, type DocumentChange } from './textEdits.js';
import type { SkipReason } from '../workspace/fileFilters.js';

/** An open document. */
export interface OpenDocument {
  /** Path as the editor gave it (the key). */
  readonly path: string;
  text: string;
  /** `splitLines(text)`, kept up to date edit by edit. */
  lines: string[];
  /** Where it lives in the index; undefined while it is not indexable (see `exclusion`). */
  location?: DocumentLocation;
  /** Why it is held but not indexed (outside the roots, vendored, ignored...). */
  exclusion?: { reason: SkipReason; detail: string };
  /** The tree of `text` (after edits: of the edited text, pending reparse). */
  tree?: Tree;
  /** Symbols of its top-level statements by text, so an edit re-extracts only what changed. */
  statements: StatementCache;
}

/** The open documents, keyed by the path the editor uses. */
export class DocumentBuffers {
  private readonly documents = new Map<string, OpenDocument>();

  get(path: string): OpenDocument | undefined {
    return this.documents.get(path);
  }

  has(path: string): boolean {
    return this.documents.has(path);
  }

  values(): IterableIterator<OpenDocument> {
    return this.documents.values();
  }

  get size(): number {
    return this.documents.size;
  }

  /** The open document indexed at `relPath`, if any: its buffer owns that entry. */
  ownerOf(relPath: string): OpenDocument | undefined {
    for (const doc of this.documents.values()) if (doc.location?.relPath === relPath) return doc;
    return undefined;
  }

  /**
   * Open (or re-open with new text, as a repeated didOpen would) a document. `lines` may come from
   * the server's document store, which split them already.
   */
  open(path: string, text: string, lines: string[] = splitLines(text)): OpenDocument {
    const existing = this.documents.get(path);
    if (existing) {
      dropTree(existing);
      existing.text = text;
      existing.lines = lines;
      return existing;
    }
    const doc: OpenDocument = { path, text, lines, statements: createStatementCache() };
    this.documents.set(path, doc);
    return doc;
  }

  /**
   * Take the text after edits that were applied once, elsewhere (textEdits.applyEdits). The tree
   * is edited alongside, so the next {@link reparse} is incremental; a full replacement makes the
   * old tree worthless, so it is freed.
   */
  applyChange(doc: OpenDocument, change: DocumentChange): void {
    doc.text = change.text;
    doc.lines = change.lines;
    for (const treeEdit of change.treeEdits) {
      if (doc.tree && treeEdit) doc.tree.edit(treeEdit);
      else dropTree(doc);
    }
  }

  /** Bring the tree up to date with the text, reusing the edited old tree when there is one. */
  reparse(doc: OpenDocument, parser: SyntaxParser): Tree {
    const tree = parser.parse(doc.text, doc.tree);
    dropTree(doc);
    doc.tree = tree;
    return tree;
  }

  /** Free a document's tree (it stops being indexed, or it is closing). */
  dropTree(doc: OpenDocument): void {
    dropTree(doc);
  }

  /** Forget a document and free its tree; returns it, or undefined if it was not open. */
  close(path: string): OpenDocument | undefined {
    const doc = this.documents.get(path);
    if (!doc) return undefined;
    dropTree(doc);
    this.documents.delete(path);
    return doc;
  }

  /** Free every tree (the index is being disposed). */
  dispose(): void {
    for (const doc of this.documents.values()) dropTree(doc);
    this.documents.clear();
  }
}

function dropTree(doc: OpenDocument): void {
  doc.tree?.delete();
  delete doc.tree;
}
