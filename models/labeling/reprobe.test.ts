import { mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from 'vitest';
import { compareReprobes, readReprobes, reprobeReport, type ReprobeRecord } from './reprobe.js';

function reprobe(deltas: number[], labelDeltas: number[], covering: boolean[]): ReprobeRecord {
  return { id: `x${deltas.join()}`, model: 'big.gguf', likelihoodEmpty: -1, deltas, labelDeltas, covering, ms: 2000 };
}

test('the two generators\' Δ rankings of the covering candidate, pooled and per instance, with sign agreement', () => {
  const reprobes = [
    // The other G puts the definition (0) first, the labeling G last.
    reprobe([0.5, 0.1, -0.2], [-0.3, 0.2, 0.1], [true, false, false]),
    // Both put it first.
    reprobe([0.2, -0.1], [0.4, 0.1], [true, false]),
    // No covering candidate: counted for the signs, never ranked.
    reprobe([0.1], [0.2], [false]),
  ];
  const c = compareReprobes(reprobes);
  expect(c.instances).toBe(2);
  expect(c.pooled).toEqual({ label: 1 / 3, other: 1, pairs: 3 });
  expect(c.perInstance.label).toBeCloseTo(0.5);
  expect(c.perInstance.other).toBeCloseTo(1);
  expect(c.perInstance.difference.mean).toBeCloseTo(0.5);
  // Signs: (+,-) (+,+) (-,+) | (+,+) (-,+) | (+,+) → 3 of 6.
  expect(c.signAgreement).toEqual({ same: 3, candidates: 6 });
  expect(reprobeReport(reprobes)).toContain('2 API instances probed again with big.gguf (mean 2.0 s each)');
});

test('a reprobe file with a torn last line reads the whole lines; a missing file reads as empty', async () => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'reprobe-'));
  const file = path.join(dir, 'r.jsonl');
  await writeFile(file, `${JSON.stringify(reprobe([1], [1], [true]))}\n{"id": "torn`);
  expect((await readReprobes(file)).map((r) => r.id)).toEqual(['x1']);
  expect(await readReprobes(path.join(dir, 'missing.jsonl'))).toEqual([]);
});
