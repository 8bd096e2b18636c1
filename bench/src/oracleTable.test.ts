import { expect, test } from 'vitest';
import { oracleTable, type OracleRow } from './oracleTable.js';

const row = (type: 'line' | 'api', es: number, em: boolean): OracleRow => ({
  taskId: `${type}-${es}`, type, candidates: 3,
  scores: {
    none: { es: es / 2, em: false, kept: 0 }, full: { es, em, kept: 3 }, delta: { es, em, kept: 1 },
    shapley: { es, em, kept: 2 }, verified: { es: 100, em: true, kept: 1 },
  },
});

test('the table averages ES, EM and chunks kept per type and overall', () => {
  const table = oracleTable([row('line', 40, false), row('line', 60, true), row('api', 80, false)], ['line', 'api']);
  const lines = table.split('\n');
  expect(lines[0]).toBe('| oracle | line: ES / EM % / kept | api: ES / EM % / kept | all: ES / EM % / kept |');
  expect(lines.find((l) => l.startsWith('| Full-Retrieve'))).toBe('| Full-Retrieve | 50.0 / 50.0 / 3.0 | 80.0 / 0.0 / 3.0 | 60.0 / 33.3 / 3.0 |');
  expect(lines.find((l) => l.startsWith('| No retrieval'))).toBe('| No retrieval (∅) | 25.0 / 0.0 / 0.0 | 40.0 / 0.0 / 0.0 | 30.0 / 0.0 / 0.0 |');
  expect(lines.find((l) => l.startsWith('| Shapley-verified'))).toContain('100.0 / 100.0 / 1.0');
});

test('a type without tasks shows a dash', () => {
  expect(oracleTable([row('line', 40, false)], ['line', 'api'])).toContain('| — |');
});
