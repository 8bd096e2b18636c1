import { expect, test } from 'vitest';
import type { SpecialTokenIds } from '../../server/src/model/completionModel.js';
import type { PromptPlan } from '../../server/src/prompt/sequences.js';
import type { LabelRecord } from '../labeling/labelRecord.js';
import { distillLabel, distillSequences, LOSS_CLASS, relabeled } from './distillSequences.js';

// Specials 900+; text ids below 100, so every position is easy to read.
const SPECIAL: SpecialTokenIds = {
  fimPrefix: 900, fimSuffix: 901, fimMiddle: 902, endOfText: 903, need: 904, done: 905, keep: 906, drop: 907, select: 908,
  chunkOpen: [910, 911, 912], chunkClose: [920, 921, 922],
};
const text = (...ids: number[]) => ({ text: ids.join(' '), ids });
const PLAN: PromptPlan = {
  prefix: text(1, 2, 3), suffix: text(4),
  packed: [
    { candidateIndex: 0, text: 'a', ids: [11, 12], reduced: false },
    { candidateIndex: 1, text: 'b', ids: [21], reduced: false },
    { candidateIndex: 3, text: 'c', ids: [31, 32], reduced: true },
  ],
};
const Y = text(50, 51);

function supervised(ids: number[], mask: Uint8Array): Array<[number, number]> {
  return ids.flatMap((id, i) => (mask[i] === LOSS_CLASS.context ? [] : [[id, mask[i]!] as [number, number]]));
}

test('NEED: the selection format supervises r* and one KEEP/DROP per candidate, at weight class 2', () => {
  const [selection, generation] = distillSequences(PLAN, Y, 'block', { retrieval: 'need', keep: [true, false, true] }, SPECIAL);
  expect(selection!.format).toBe('selection');
  expect(selection!.ids).toEqual([900, 1, 2, 3, 901, 4, 904, 910, 11, 12, 920, 911, 21, 921, 912, 31, 32, 922, 908, 906, 907, 906, 905]);
  expect(supervised(selection!.ids, selection!.mask)).toEqual([[904, 2], [906, 2], [907, 2], [906, 2]]);
});

test('NEED: the generation format keeps only S*, renumbered, and supervises r*, Y and a block\'s <EOT>', () => {
  const [, generation] = distillSequences(PLAN, Y, 'block', { retrieval: 'need', keep: [true, false, true] }, SPECIAL);
  expect(generation!.ids).toEqual([900, 1, 2, 3, 901, 4, 904, 910, 11, 12, 920, 911, 31, 32, 921, 905, 902, 50, 51, 903]);
  expect(supervised(generation!.ids, generation!.mask)).toEqual([[904, 2], [50, 1], [51, 1], [903, 1]]);
});

test('DONE: only the no-retrieval format, with r* = <DONE> supervised', () => {
  const sequences = distillSequences(PLAN, Y, 'block', { retrieval: 'done', keep: [false, false, false] }, SPECIAL);
  expect(sequences.map((s) => s.format)).toEqual(['no-retrieval']);
  expect(sequences[0]!.ids).toEqual([900, 1, 2, 3, 901, 4, 905, 902, 50, 51, 903]);
  expect(supervised(sequences[0]!.ids, sequences[0]!.mask)).toEqual([[905, 2], [50, 1], [51, 1], [903, 1]]);
});

test.each(['line', 'api'] as const)('a %s target\'s <EOT> is context, as in the pretraining data', (kind) => {
  const [, generation] = distillSequences(PLAN, Y, kind, { retrieval: 'need', keep: [true, false, true] }, SPECIAL);
  expect(generation!.ids.at(-1)).toBe(903);
  expect(supervised(generation!.ids, generation!.mask)).toEqual([[904, 2], [50, 1], [51, 1]]);
  const [done] = distillSequences(PLAN, Y, kind, { retrieval: 'done', keep: [false, false, false] }, SPECIAL);
  expect(supervised(done!.ids, done!.mask)).toEqual([[905, 2], [50, 1], [51, 1]]);
});

test('keep labels must match the packed candidates', () => {
  expect(() => distillSequences(PLAN, Y, 'block', { retrieval: 'need', keep: [true] }, SPECIAL)).toThrow(/1 keep labels for 3/);
});

const RECORD = {
  deltas: [0.2, -0.1, 0], phi: [0.05, 0.01, -0.02], keep: [false, true, false], retrieval: 'need',
} as unknown as LabelRecord;

test('label sources: verified Shapley coalition, Δ-only, and Shapley without verification', () => {
  expect(distillLabel(RECORD, 'shapley')).toEqual({ retrieval: 'need', keep: [false, true, false] });
  expect(distillLabel(RECORD, 'delta')).toEqual({ retrieval: 'need', keep: [true, false, false] });
  expect(distillLabel(RECORD, 'unverified')).toEqual({ retrieval: 'need', keep: [true, true, false] });
  expect(distillLabel({ ...RECORD, deltas: [-1, 0, -2] }, 'delta')).toEqual({ retrieval: 'done', keep: [false, false, false] });
});

test('discarded instances give no Shapley label, but still count for the ablations that never verify', () => {
  const discarded = { ...RECORD, discarded: 'es-below-threshold', retrieval: undefined } as LabelRecord;
  expect(distillLabel(discarded, 'shapley')).toBeUndefined();
  expect(distillLabel(discarded, 'delta')).toBeDefined();
});

// ∅ scores 30; the pool's best coalition {1} scores 45 (the labeler's τ_es of 50 discarded it).
const POOLED = {
  candidates: [{}, {}, {}], deltas: [0.2, 0.1, -0.3], phi: [0.1, 0.05, -0.2],
  empty: { completion: 'x', es: 30, em: false },
  pool: [
    { members: [0], completion: 'a', es: 40, em: false },
    { members: [1], completion: 'b', es: 45, em: false },
    { members: [0, 1], completion: 'c', es: 45, em: false },
  ],
  keep: [false, false, false], discarded: 'ES(S*) 45.0 < τ_es 50',
} as unknown as LabelRecord;

test('relabeling at a lower τ_es keeps the discarded instance with S* from its decoded pool (ties to the earlier proposal)', () => {
  expect(distillLabel(POOLED, 'shapley')).toBeUndefined();
  expect(relabeled(POOLED, { epsilon: 0, minEs: 40 })).toEqual({ retrieval: 'need', keep: [false, true, false] });
  expect(distillLabel(POOLED, 'shapley', { epsilon: 0, minEs: 40 })).toEqual({ retrieval: 'need', keep: [false, true, false] });
  expect(relabeled(POOLED, { epsilon: 0, minEs: 50 })).toBeUndefined();
});

test('relabeling: r* is DONE when S* gains no more than ε over ∅', () => {
  expect(relabeled(POOLED, { epsilon: 15, minEs: 40 })).toEqual({ retrieval: 'done', keep: [false, true, false] });
  const emptyPool = { ...POOLED, pool: [] } as unknown as LabelRecord;
  expect(relabeled(emptyPool, { epsilon: 0, minEs: 0 })).toBeUndefined();
});
