import { expect, test } from 'vitest';
import { searchErrorTable, type Probe, type Row } from './searchErrorTable.js';

const probe = (em: boolean, likelihoodTarget: number, likelihoodGreedy: number): Probe => ({ completion: '', em, likelihoodTarget, likelihoodGreedy });

test('counts exact matches, search errors (Y more likely than greedy), near misses and the pull of the evidence', () => {
  const rows: Row[] = [
    // EM with evidence; without, greedy beats Y by 2 nats: a model error, not even a near miss.
    { taskId: 'a', type: 'api', target: 'f()', probes: { none: probe(false, -6, -4), full: probe(true, -2, -2) } },
    // A search error with evidence (-3 > -5), a near miss without (-6 > -6.5 - 1).
    { taskId: 'b', type: 'api', target: 'g()', probes: { none: probe(false, -6, -5.5), full: probe(false, -3, -5) } },
  ];
  const lines = searchErrorTable(rows).trim().split('\n');
  expect(lines).toHaveLength(4);
  expect(lines[2]).toBe('| api | none | 2 | 0 | 0 | 1 | 0.00 nats |');
  // Pull: ((-2 - -6) + (-3 - -6)) / 2 = 3.5.
  expect(lines[3]).toBe('| api | full | 2 | 1 | 1 | 1 | 3.50 nats |');
});

test('task types without rows are left out', () => {
  const rows: Row[] = [{ taskId: 'a', type: 'line', target: 'x', probes: { none: probe(false, -1, -1), full: probe(false, -1, -1) } }];
  expect(searchErrorTable(rows)).not.toMatch(/\| api \|/);
  expect(searchErrorTable(rows)).toMatch(/\| line \| full \|/);
});
