import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createParserForPath } from '../../server/src/languages/registry.js';
import type { SyntaxParser } from '../../server/src/languages/syntaxTree.js';
import { WorkspaceIndex } from '../../server/src/indexing/workspaceIndex.js';
import { callAtCursor, definitionEvidence, definitionEvidenceReport, resolveRecord, type ResolvedRecord } from './labelEvidence.js';
import type { LabelRecord } from './labelRecord.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../test/fixtures/retrieval-ws');

const OUTLINE = { relPath: 'app/report.py', startLine: 1, endLine: 2, sources: ['import'], reduced: false };
const PRICING = { relPath: 'shop/pricing.py', startLine: 4, endLine: 12, sources: ['definition'], reduced: false };
const CART = { relPath: 'shop/cart.py', startLine: 0, endLine: 10, sources: ['bm25'], reduced: false };

/** An API record of app/report.py with the outline, apply_discount's definition and a cart window. */
function record(overrides: Partial<LabelRecord> = {}): LabelRecord {
  return {
    id: 'ws/app/report.py:6:11:api', repository: 'ws', split: 'train', path: 'app/report.py', kind: 'api',
    line: 5, character: 10, target: 'apply_discount(amount, percent)',
    candidates: [OUTLINE, PRICING, CART], likelihoodEmpty: -2, deltas: [0.2, 0.1, -0.1], phi: [0.2, 0.1, -0.1],
    empty: { completion: 'x', es: 10, em: false }, pool: [], retrieval: 'need', keep: [false, true, false],
    timings: { probeMs: 1, shapleyMs: 1, verifyMs: 1, totalMs: 3 },
    ...overrides,
  };
}

describe('resolving a record against the corpus index', () => {
  let index: WorkspaceIndex;
  let parser: SyntaxParser;
  beforeAll(async () => {
    index = new WorkspaceIndex({ windowLines: 8, windowStride: 4 });
    await index.indexRoots([ROOT]);
    parser = await createParserForPath('module.py');
  });
  afterAll(() => {
    index.dispose();
    parser.dispose();
  });

  test('the import outline listing the callee and the chunk holding its first line cover it; a window elsewhere does not', () => {
    expect(resolveRecord(record(), index, parser).covering).toEqual([true, true, false]);
  });

  test('the call is found from its start (the rule since 2026-12-05) or from the called name (before)', () => {
    const tree = parser.parse('x = m.f(1)\ny = g(2)\n');
    expect(callAtCursor(tree.rootNode, 0, 4)?.text).toBe('m.f');
    expect(callAtCursor(tree.rootNode, 0, 6)?.text).toBe('m.f');
    expect(callAtCursor(tree.rootNode, 1, 4)?.text).toBe('g');
    expect(callAtCursor(tree.rootNode, 0, 5)).toBeUndefined();
    tree.delete();
  });

  test('a cursor on no call, or a call that resolves to no other file, gives no covering', () => {
    expect(resolveRecord(record({ line: 7, character: 4 }), index, parser).covering).toBeUndefined();
    expect(resolveRecord(record({ path: 'missing.py' }), index, parser).covering).toBeUndefined();
  });
});

describe('the definition evidence of the labels', () => {
  const resolved: ResolvedRecord[] = [
    // NEED: the definition (chunk 1) kept, the outline listing it dropped, the window dropped.
    { record: record(), covering: [true, true, false] },
    // DONE: φ ranks the window above the definition.
    { record: record({ retrieval: 'done', phi: [0, -0.2, 0.3], keep: [false, false, false] }), covering: [false, true, false] },
    // Discarded, and one that resolves nowhere (counted, never ranked).
    { record: record({ retrieval: undefined, phi: [0.1, 0.1, 0.1], keep: [false, false, false] }), covering: [false, true, false] },
    { record: record() },
  ];

  test('pairs of a covering and a non-covering candidate, ties counting half, pooled per group', () => {
    const evidence = definitionEvidence(resolved);
    expect([evidence.apiRecords, evidence.crossFile, evidence.withCovering]).toEqual([4, 3, 3]);
    // NEED: φ 0.2 and 0.1 against -0.1 → 2 of 2; KEEP 0 and 1 against 0 → 0.5 + 1.
    expect(evidence.rankings.need.phi).toEqual({ wins: 2, pairs: 2, records: 1 });
    expect(evidence.rankings.need.keep).toEqual({ wins: 1.5, pairs: 2, records: 1 });
    // DONE adds -0.2 against 0 and 0.3 (0 wins), and KEEP ties (1).
    expect(evidence.rankings.labeled.phi).toEqual({ wins: 2, pairs: 4, records: 2 });
    expect(evidence.rankings.labeled.keep).toEqual({ wins: 2.5, pairs: 4, records: 2 });
    expect(evidence.rankings.all.phi).toEqual({ wins: 3, pairs: 6, records: 3 });
  });

  test('the NEED records\' candidates by role, with what S* keeps', () => {
    const roles = definitionEvidence(resolved).keptByRole;
    expect(Object.fromEntries(roles)).toEqual({
      'definition (outline)': { count: 1, kept: 0 }, 'definition (chunk)': { count: 1, kept: 1 }, other: { count: 1, kept: 0 },
    });
    const report = definitionEvidenceReport(definitionEvidence(resolved));
    expect(report).toContain('4 API records; 3 call a definition in another file');
    expect(report).toContain('| NEED | 1.000 (2 pairs, 1 records) | 0.750 (2 pairs, 1 records) |');
  });
});
