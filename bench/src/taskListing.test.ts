import { describe, expect, test } from 'vitest';
import { countsTable, taskLine } from './taskListing.js';
import type { BenchTask } from './tasks/types.js';

const task = (overrides: Partial<BenchTask>): BenchTask => ({
  id: 'pkg/a.go:3:2:line', type: 'line', repository: 'pkg', root: '/r', relPath: 'a.go', absPath: '/r/a.go',
  cursor: { line: 2, character: 1 }, prefix: '', target: 'x := f()', suffix: '', mode: 'line', ...overrides,
});

describe('taskLine', () => {
  test.each([
    ['a line task: id and target', task({}), 'pkg/a.go:3:2:line  "x := f()"'],
    ['an API task: its callee, 1-based line', task({
      id: 'pkg/a.go:3:7:api', type: 'api', target: 'cart.New()',
      callee: { name: 'New', qualifiedName: 'New', relPath: 'cart/cart.go', kind: 'function', startLine: 9, endLine: 12 },
    }), 'pkg/a.go:3:7:api  "cart.New()"  -> cart/cart.go:10 New (function)'],
    ['a long target is cut', task({ target: 'y'.repeat(150) }), `pkg/a.go:3:2:line  "${'y'.repeat(100)}…"`],
  ])('%s', (_, input, expected) => {
    expect(taskLine(input)).toBe(expected);
  });
});

test('countsTable: a row per repository and the totals', () => {
  const table = countsTable([
    { repository: 'a', files: 3, candidates: { line: 10, api: 4, block: 0 }, chosen: { line: 2, api: 1, block: 0 } },
    { repository: 'b', files: 5, candidates: { line: 20, api: 0, block: 0 }, chosen: { line: 3, api: 0, block: 0 } },
  ], ['line', 'api']);
  const rows = table.split('\n').map((row) => row.split('|').map((cell) => cell.trim()).filter(Boolean));
  expect(rows[0]).toEqual(['repository', 'files', 'line candidates', 'line chosen', 'api candidates', 'api chosen']);
  expect(rows.slice(2)).toEqual([
    ['a', '3', '10', '2', '4', '1'],
    ['b', '5', '20', '3', '0', '0'],
    ['**total**', '8', '30', '5', '4', '1'],
  ]);
});
