/**
 * The server's index and retrieval over one corpus repository, wired as the engine wires them
 * (completion/createEngine.ts): the lexical index follows the workspace index's change events.
 */
import path from 'node:path';
import type { CompletionSettings } from '../../shared/settings.js';
import { createParserForPath } from '../../server/src/languages/registry.js';
import type { SyntaxParser } from '../../server/src/languages/syntaxTree.js';
import { WorkspaceIndex } from '../../server/src/indexing/workspaceIndex.js';
import type { LineTokenizer } from '../../server/src/prompt/lineTokenizer.js';
import { LexicalIndex } from '../../server/src/retrieval/lexicalIndex.js';
import { Retriever } from '../../server/src/retrieval/retriever.js';
import type { RepositoryTools } from './trainingSequences.js';

export async function openRepository(
  root: string, settings: Pick<CompletionSettings, 'windowLines' | 'windowStride'>, tokenizer: LineTokenizer,
): Promise<RepositoryTools & { parser: SyntaxParser; dispose(): void }> {
  const index = await WorkspaceIndex.create({ windowLines: settings.windowLines, windowStride: settings.windowStride });
  const lexical = new LexicalIndex(index);
  const subscription = index.onDidChange((changes) => lexical.applyChanges(changes));
  const result = await index.indexRoots([root]);
  if (result.kind !== 'ok') throw new Error(`indexing ${root} was cancelled`);
  // A parser of its own for the target finder (the index frees its trees after indexing).
  const parser = await createParserForPath('module.py');
  return {
    // Named as the server names a workspace folder's repository (createEngine repoNameOf).
    repositoryName: path.basename(root), index, retriever: new Retriever(index, lexical), tokenizer, parser,
    dispose() {
      subscription.dispose();
      index.dispose();
      parser.dispose();
    },
  };
}
