import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, test } from 'vitest';
import { WorkspaceIndex } from '../indexing/workspaceIndex.js';
import { LexicalIndex } from './lexicalIndex.js';
import { Retriever } from './retriever.js';
import type { RetrievalQuery } from './types.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../test/fixtures/retrieval-ws');

let index: WorkspaceIndex;
let retriever: Retriever;

beforeAll(async () => {
  index = new WorkspaceIndex({ windowLines: 8, windowStride: 4 });
  const lexical = new LexicalIndex(index);
  index.onDidChange((changes) => lexical.applyChanges(changes));
  await index.indexRoots([ROOT]);
  retriever = new Retriever(index, lexical);
});

/** A query at `line` (0-based) of an indexed file, the cursor after `column` characters of that line. */
function queryAt(relPath: string, line: number, column: number): RetrievalQuery {
  const file = index.file(relPath)!;
  const prefixLines = [...file.lines.slice(0, line), file.lines[line]!.slice(0, column)];
  const suffixText = [file.lines[line]!.slice(column), ...file.lines.slice(line + 1)].join('\n');
  return { file, relPath, prefixLines, suffixText, cursorLine: line };
}

function summarize(query: RetrievalQuery, topK = 10): string {
  return retriever.retrieve(query, { topK, windowLines: 8 })
    .map((c) => `${c.chunk.relPath}:${c.chunk.startLine}-${c.chunk.endLine} ${c.chunk.kind} ${c.chunk.symbol ?? ''} [${c.sources.join(',')}]`.replace(/ +\[/, ' ['))
    .join('\n') + '\n';
}

describe('golden rankings on the fixture workspace', () => {
  test.each([
    ['checkout-total', 'app/checkout.py', 10, 11],
    ['report-with-tax', 'app/report.py', 6, 12],
    ['cart-total-body', 'shop/cart.py', 30, 8],
  ])('%s', async (name, relPath, line, column) => {
    await expect(summarize(queryAt(relPath, line, column))).toMatchFileSnapshot(`golden/${name}.txt`);
  });
});

describe('retrieval rules', () => {
  test('a definition used at the cursor is retrieved from the file that defines it', () => {
    const results = retriever.retrieve(queryAt('app/report.py', 6, 12), { topK: 10, windowLines: 8 });
    const definition = results.find((c) => c.chunk.symbol === 'with_tax');
    expect(definition?.chunk.relPath).toBe('shop/pricing.py');
    expect(definition?.sources).toContain('definition');
    expect(definition?.signature).toContain('def with_tax(amount, rate=TAX_RATE):');
  });

  test('usage sites of the enclosing function are candidates', () => {
    const results = retriever.retrieve(queryAt('shop/pricing.py', 9, 4), { topK: 10, windowLines: 8 });
    expect(results.some((c) => c.sources.includes('usage') && c.chunk.relPath === 'app/report.py')).toBe(true);
  });

  test("chunks overlapping the cursor's own region are excluded", () => {
    const query = queryAt('shop/cart.py', 30, 8);
    for (const candidate of retriever.retrieve(query, { topK: 10, windowLines: 8 })) {
      const overlaps = candidate.chunk.relPath === 'shop/cart.py' && candidate.chunk.startLine < 38 && candidate.chunk.endLine > 22;
      expect(overlaps, candidate.chunk.id).toBe(false);
    }
  });

  test('chunks of the lines the prompt shows around the cursor are excluded too', () => {
    const query = queryAt('shop/cart.py', 30, 8);
    const overlapping = (candidates: ReturnType<Retriever['retrieve']>, start: number, end: number) => candidates.filter(
      (candidate) => candidate.chunk.relPath === 'shop/cart.py' && candidate.chunk.startLine < end && candidate.chunk.endLine > start);
    const windowOnly = retriever.retrieve(query, { topK: 10, windowLines: 2 });
    // The prompt shows 25 lines above and 6 below: nothing of lines 5..36 may come back.
    const shown = retriever.retrieve({ ...query, shownLines: { above: 25, below: 6 } }, { topK: 10, windowLines: 2 });
    expect(overlapping(windowOnly, 5, 37).length).toBeGreaterThan(0);
    expect(overlapping(shown, 5, 37)).toEqual([]);
    // A prompt that shows fewer lines than the window still leaves the window out.
    const few = retriever.retrieve({ ...query, shownLines: { above: 1, below: 0 } }, { topK: 10, windowLines: 8 });
    expect(overlapping(few, 22, 38)).toEqual([]);
  });

  test('ranking is deterministic and respects K', () => {
    const query = queryAt('app/checkout.py', 10, 11);
    expect(summarize(query, 3)).toBe(summarize(query, 3));
    expect(retriever.retrieve(query, { topK: 3, windowLines: 8 })).toHaveLength(3);
    expect(retriever.retrieve(query, { topK: 0, windowLines: 8 })).toHaveLength(0);
  });

  test('the import outline comes first and lists the signatures of what the file imports from the workspace', () => {
    const [outline, ...rest] = retriever.retrieve(queryAt('app/report.py', 6, 12), { topK: 10, windowLines: 8 });
    expect(outline!.chunk).toMatchObject({ kind: 'outline', relPath: 'app/report.py', startLine: 1, endLine: 2 });
    expect(outline!.text).toBe('# shop/pricing.py\ndef apply_discount(amount, percent):\ndef with_tax(amount, rate=TAX_RATE):\n');
    expect(outline!.lists).toEqual([
      { relPath: 'shop/pricing.py', startLine: index.definitionsNamed('apply_discount')[0]!.startLine },
      { relPath: 'shop/pricing.py', startLine: index.definitionsNamed('with_tax')[0]!.startLine },
    ]);
    expect(rest).toHaveLength(9);
    expect(rest.some((c) => c.chunk.kind === 'outline')).toBe(false);
  });

  test('the outline puts the most-used imports first and marks aliases', () => {
    const file = index.file('app/report.py')!;
    const aliased = {
      ...file,
      imports: [{ ...file.imports[0]!, names: [{ name: 'apply_discount' }, { name: 'with_tax', alias: 'taxed' }] }],
      references: new Map([['apply_discount', [5]], ['taxed', [6, 7, 9]]]),
    };
    const query = { ...queryAt('app/report.py', 6, 12), file: aliased };
    const [outline] = retriever.retrieve(query, { topK: 10, windowLines: 8 });
    expect(outline!.text).toBe('# shop/pricing.py\ndef with_tax(amount, rate=TAX_RATE):  # as taxed\ndef apply_discount(amount, percent):\n');
  });

  test('no outline for a file without workspace imports, or outside the workspace', () => {
    const query = queryAt('shop/pricing.py', 9, 4);
    expect(retriever.retrieve(query, { topK: 10, windowLines: 8 }).some((c) => c.chunk.kind === 'outline')).toBe(false);
    const outside = { ...queryAt('app/report.py', 6, 12), file: undefined, relPath: undefined };
    expect(retriever.retrieve(outside, { topK: 10, windowLines: 8 }).some((c) => c.chunk.kind === 'outline')).toBe(false);
  });

  test('a query with no identifiers still answers (structural sources only, or nothing)', () => {
    const results = retriever.retrieve({ prefixLines: ['   '], suffixText: '', cursorLine: 0 }, { topK: 10, windowLines: 8 });
    expect(Array.isArray(results)).toBe(true);
  });
});

