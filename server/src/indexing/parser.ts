/**
 * The only module that loads tree-sitter. web-tree-sitter (WASM) instead of the native binding:
 * the native prebuilt needs a newer libstdc++ than Debian 12 ships (PLATFORM-FACTS, tree-sitter).
 * Trees live in WASM memory that the JS GC cannot see: whoever gets a Tree must `delete()` it.
 */
import { createRequire } from 'node:module';
import { Edit, Language, Parser, type Node, type Point, type Tree } from 'web-tree-sitter';

export type { Node as SyntaxNode, Point, Tree } from 'web-tree-sitter';
export { Edit } from 'web-tree-sitter';

/** A Python parser; positions in its trees are UTF-16 code units, like JS strings and LSP. */
export interface PythonParser {
  /**
   * Parse `text`. With `oldTree` (already `edit()`ed to match `text`) the parse is incremental.
   * The caller owns the returned tree and must `delete()` it; `oldTree` stays the caller's too.
   */
  parse(text: string, oldTree?: Tree): Tree;
  /** Free the parser's WASM memory; the parser is unusable afterwards. */
  dispose(): void;
}

let pythonLanguage: Promise<Language> | undefined;

/** Initialise the WASM runtime and load the grammar once per process. */
function loadPythonLanguage(): Promise<Language> {
  pythonLanguage ??= (async () => {
    await Parser.init();
    const wasmPath = createRequire(import.meta.url).resolve('tree-sitter-python/tree-sitter-python.wasm');
    return Language.load(wasmPath);
  })().catch((error: unknown) => {
    pythonLanguage = undefined; // Let a later call retry instead of caching the failure.
    throw new Error('Could not load the tree-sitter Python grammar (is tree-sitter-python installed?)', { cause: error });
  });
  return pythonLanguage;
}

/** Create a parser; the first call loads the runtime and grammar (~65 ms), later calls are cheap. */
export async function createPythonParser(): Promise<PythonParser> {
  const language = await loadPythonLanguage();
  const parser = new Parser();
  parser.setLanguage(language);
  return {
    parse(text, oldTree) {
      const tree = parser.parse(text, oldTree ?? null);
      // Null only happens with a progress callback or cancellation flag, neither of which we set.
      if (!tree) throw new Error('tree-sitter returned no tree');
      return tree;
    },
    dispose() {
      parser.delete();
    },
  };
}

/** A tree-sitter edit from UTF-16 offsets and positions (web-tree-sitter uses code units throughout). */
export function treeEdit(
  startIndex: number, oldEndIndex: number, newEndIndex: number,
  startPosition: Point, oldEndPosition: Point, newEndPosition: Point,
): Edit {
  return new Edit({ startIndex, oldEndIndex, newEndIndex, startPosition, oldEndPosition, newEndPosition });
}

/** Last line a node occupies (a node that ends at column 0 ends on the line before). */
export function lastRow(node: Node): number {
  const end = node.endPosition;
  return end.column === 0 && end.row > node.startPosition.row ? end.row - 1 : end.row;
}
