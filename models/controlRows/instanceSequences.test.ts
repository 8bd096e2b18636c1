import { describe, expect, it } from 'vitest';
import { fullRetrieveHelps } from './instanceSequences.js';

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
