import { describe, expect, it } from 'vitest';
import { evidenceChunks, fullRetrieveHelps, triggerLabel } from './instanceSequences.js';

const candidate = { relPath: 'a.py', startLine: 1, endLine: 2, sources: ['bm25'], reduced: false };
const decode = (members: number[], es: number) => ({ members, completion: 'x', es, em: es === 100 });

describe('fullRetrieveHelps (the trigger target a policy without Y can reach)', () => {
  const record = (full: number, empty: number) => ({
    candidates: [candidate, candidate],
    pool: [decode([0], 100), decode([0, 1], full)],
    empty: { completion: 'y', es: empty, em: false },
  });

  it('is NEED when every candidate together decodes better than none, whatever the best coalition did', () => {
    expect(fullRetrieveHelps(record(70, 40))).toBe('need');
    expect(fullRetrieveHelps(record(30, 40))).toBe('done');
  });

  it('calls a tie DONE: retrieval then only costs tokens', () => {
    expect(fullRetrieveHelps(record(40, 40))).toBe('done');
  });

  it('has no answer without a decode of every candidate, or without candidates', () => {
    expect(fullRetrieveHelps({ ...record(70, 40), pool: [decode([0], 100)] })).toBeUndefined();
    expect(fullRetrieveHelps({ candidates: [], pool: [decode([], 50)], empty: { completion: '', es: 0, em: false } })).toBeUndefined();
  });
});

describe('the evidence prompt Y is read after', () => {
  const record = {
    candidates: [candidate, candidate], pool: [decode([0], 100), decode([0, 1], 70)], empty: { completion: 'y', es: 40, em: false },
  };
  const need = { retrieval: 'need' as const, keep: [false, true, true] };

  it('verified: the chunks S* keeps, for a NEED label only; an unlabeled record has no trigger label', () => {
    expect(evidenceChunks(need, 'verified', 3)).toEqual([1, 2]);
    expect(evidenceChunks({ retrieval: 'done', keep: [] }, 'verified', 3)).toEqual([]);
    expect(evidenceChunks(undefined, 'verified', 3)).toEqual([]);
    expect(triggerLabel(record, undefined, { evidence: 'verified' })).toBeUndefined();
  });

  it('full: every packed chunk, labeled or not, the trigger field from Full-Retrieve\'s decode', () => {
    expect(evidenceChunks(undefined, 'full', 3)).toEqual([0, 1, 2]);
    expect(evidenceChunks(need, 'full', 2)).toEqual([0, 1]);
    expect(triggerLabel(record, undefined, { evidence: 'full' })).toBe('need');
    expect(triggerLabel({ ...record, pool: [decode([0], 100)] }, undefined, { evidence: 'full' })).toBe('done');
    // A label, where there is one, still names the trigger.
    expect(triggerLabel(record, { retrieval: 'done', keep: [] }, { evidence: 'full' })).toBe('done');
  });
});
