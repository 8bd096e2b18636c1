/**
 * The only module that loads tree-sitter. web-tree-sitter (WASM) instead of the native binding:
 * the native prebuilt needs a newer libstdc++ than Debian 12 ships (PLATFORM-FACTS, tree-sitter).
 * Trees live in WASM memory that the JS GC cannot see: whoever gets a Tree must `delete()` it.
 */
import { createRequire } from 'node:module';
import { Edit, Language, Parser, type Node, type Point, type Tree } from 'web-tree-sitter';

export type { Node as SyntaxNode, Point, Tree } from 'web-tree-sitter';
export { Edit } from 'web-tree-sitter';

/** A tree-sitter grammar: the npm package that ships it and its WASM file in that package. */
export interface Grammar {
  /** Package name, as pinned in package.json (`tree-sitter-python`). */
  package: string;
  /** The WASM file's name inside the package (`tree-sitter-python.wasm`). */
  wasm: string;
}

/** A parser of one grammar; positions in its trees are UTF-16 code units, like JS strings and LSP. */
export interface SyntaxParser {
  /**
   * Parse `text`. With `oldTree` (already `edit()`ed to match `text`) the parse is incremental.
   * The caller owns the returned tree and must `delete()` it; `oldTree` stays the caller's too.
   */
  parse(text: string, oldTree?: Tree): Tree;
  /** Free the parser's WASM memory; the parser is unusable afterwards. */
  dispose(): void;
}

let runtime: Promise<void> | undefined;
const languages = new Map<string, Promise<Language>>();

/** Initialises tree-sitter's WASM runtime (once per process); rejects when the install lacks it. */
export function initSyntaxRuntime(): Promise<void> {
  runtime ??= Parser.init().catch((error: unknown) => {
    runtime = undefined;
    throw new Error('Could not start tree-sitter (web-tree-sitter): is the install complete? npm ci installs it', { cause: error });
  });
  return runtime;
}

/** Initialise the WASM runtime once and load each grammar once per process. */
function loadLanguage(grammar: Grammar): Promise<Language> {
  const key = `${grammar.package}/${grammar.wasm}`;
  let loading = languages.get(key);
  if (!loading) {
    loading = initSyntaxRuntime().then(() => Language.load(createRequire(import.meta.url).resolve(key))).catch((error: unknown) => {
      languages.delete(key); // Let a later call retry instead of caching the failure.
      throw new Error(`Could not load the tree-sitter grammar ${key} (is ${grammar.package} installed? npm ci installs it)`, { cause: error });
    });
    languages.set(key, loading);
  }
  return loading;
}

/** Create a parser; the first call for a grammar loads it (~65 ms), later calls are cheap. */
export async function createParser(grammar: Grammar): Promise<SyntaxParser> {
  const language = await loadLanguage(grammar);
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
