import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, test } from 'vitest';
import { WorkspaceIndex } from '../indexing/workspaceIndex.js';
import { LexicalIndex } from './lexicalIndex.js';
import { keywordsOf } from './tokens.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../test/fixtures/retrieval-ws');
const TYPED = path.join(ROOT, 'app/report.py');
const QUERY = 'total = with_tax(cart.subtotal(), rate)';

const indexes: WorkspaceIndex[] = [];
afterEach(() => indexes.splice(0).forEach((index) => index.dispose()));

async function indexed(rebuildSlack: number): Promise<{ index: WorkspaceIndex; lexical: LexicalIndex }> {
  const index = new WorkspaceIndex({ windowLines: 8, windowStride: 4 });
  indexes.push(index);
  const lexical = new LexicalIndex(index, { rebuildSlack });
  index.onDidChange((changes) => lexical.applyChanges(changes));
  await index.indexRoots([ROOT]);
  return { index, lexical };
}

function ranking(lexical: LexicalIndex): string[] {
  const { jaccard, bm25 } = lexical.rank(QUERY, 10, () => false, keywordsOf('query.py'));
  return [...jaccard, ...bm25].map((w) => `${w.chunk.relPath}:${w.chunk.startLine} ${w.score.toFixed(6)}`);
}

describe('LexicalIndex under typing', () => {
  test('partial identifiers typed and deleted do not pile up, and rankings stay those of a fresh index', async () => {
    const { index, lexical } = await indexed(50);
    const before = lexical.tokenCount;
    index.openDocument(TYPED, readFileSync(TYPED, 'utf8'));
    // Type a fresh identifier character by character on line 0, 300 times over: each keystroke
    // interns a new partial token (`name_17_a`, `name_17_ab`, ...).
    for (let n = 0; n < 300; n++) {
      const word = `name_${n}_abcdef`;
      for (let i = 1; i <= word.length; i++) {
        index.applyDocumentEdits(TYPED, [{ range: { start: { line: 0, character: 0 }, end: { line: 0, character: i - 1 } }, text: word.slice(0, i) }]);
      }
      index.applyDocumentEdits(TYPED, [{ range: { start: { line: 0, character: 0 }, end: { line: 0, character: word.length } }, text: '' }]);
    }
    // Without forgetting dead tokens this would be before + 300 * 15.
    expect(lexical.tokenCount).toBeLessThan(before + 200);

    const fresh = await indexed(50);
    fresh.index.openDocument(TYPED, index.openDocumentText(TYPED)!.text);
    expect(ranking(lexical)).toEqual(ranking(fresh.lexical));
    expect(ranking(lexical).length).toBeGreaterThan(0);
  });
});
