import { expect, test } from 'vitest';
import { fullAgainstNone, labelOracleReport, oracleRowOf, shapleyAgainstDelta } from './labelOracle.js';
import type { LabelRecord } from './labelRecord.js';

/** A record with three candidates: chunk 0 helps alone, 2 hurts, and {0, 1} decodes best. */
function record(overrides: Partial<LabelRecord> = {}): LabelRecord {
  const candidate = { relPath: 'a.py', startLine: 1, endLine: 2, sources: ['lexical'], reduced: false };
  return {
    id: 'pkg/a.py:1:1:api', repository: 'pkg', split: 'train', path: 'a.py', kind: 'api', line: 0, character: 0, target: 'f(x)',
    candidates: [candidate, candidate, candidate], likelihoodEmpty: -3, deltas: [0.5, 0.1, -0.4], phi: [0.45, 0.12, -0.38],
    empty: { completion: 'g(', es: 20, em: false },
    pool: [
      { members: [0], completion: 'f(y)', es: 75, em: false },
      { members: [0, 1], completion: 'f(x)', es: 100, em: true },
      { members: [0, 1, 2], completion: 'h(', es: 10, em: false },
    ],
    keep: [true, true, false], timings: { probeMs: 1, shapleyMs: 1, verifyMs: 1, totalMs: 3 },
    ...overrides,
  };
}

test('each oracle reads its coalition\'s decode; S* is the best of all decodes', () => {
  const row = oracleRowOf(record());
  expect('missing' in row).toBe(false);
  if ('missing' in row) return;
  expect(row.scores.none).toEqual({ es: 20, em: false, kept: 0 });
  expect(row.scores.full).toEqual({ es: 10, em: false, kept: 3 });
  expect(row.scores.delta).toEqual({ es: 100, em: true, kept: 2 });
  expect(row.scores.shapley).toEqual({ es: 100, em: true, kept: 2 });
  expect(row.scores.verified).toEqual({ es: 100, em: true, kept: 2 });
});

test('S* is ∅ when no decode beats it, and an ES tie goes to EM', () => {
  const worse = oracleRowOf(record({ empty: { completion: 'f(x)', es: 100, em: true } }));
  expect('missing' in worse ? undefined : worse.scores.verified).toEqual({ es: 100, em: true, kept: 0 });
  const tie = oracleRowOf(record({ empty: { completion: 'f(x )', es: 100, em: false } }));
  expect('missing' in tie ? undefined : tie.scores.verified.kept).toBe(2);
});

test('an oracle coalition missing from the decodes leaves the instance out, named', () => {
  const row = oracleRowOf(record({ pool: record().pool.slice(0, 2) }));
  expect(row).toEqual({ missing: 'full' });
  expect(labelOracleReport([record(), record({ id: 'b', pool: record().pool.slice(0, 2) })]))
    .toContain('1 labeled instances (left out: 1 without the full coalition among their decodes)');
});

test('full against ∅ counts helps, hurts and ties by ES', () => {
  const rows = [record(), record({ pool: [...record().pool.slice(0, 2), { members: [0, 1, 2], completion: '', es: 20, em: false }] })]
    .map(oracleRowOf).filter((row) => !('missing' in row));
  expect(fullAgainstNone(rows as never)).toEqual({ helps: 0, hurts: 1, ties: 1 });
});

test('Shapley against Δ: differing sign sets and the mean gap', () => {
  const stats = shapleyAgainstDelta([record(), record({ phi: [0.5, -0.1, -0.4] })]);
  expect(stats.differingSets).toBe(1);
  expect(stats.meanDelta).toBeCloseTo((0.5 + 0.1 + 0.4) / 3);
  expect(stats.meanGap).toBeCloseTo((0.05 + 0.02 + 0.02 + 0 + 0.2 + 0) / 6);
});
