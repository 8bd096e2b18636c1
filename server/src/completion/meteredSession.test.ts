import { expect, test } from 'vitest';
import type { BinaryDecision, GenerationResult, ModelSession } from '../model/completionModel.js';
import { MeteredSession } from './meteredSession.js';

const NEED = 900, DONE = 901, KEEP = 902, DROP = 903;
const decision = (p: number): BinaryDecision => ({ probabilityFirst: p, logitFirst: 0, logitSecond: 0 });

/** A session whose next call reports `reused` tokens read from the cache. */
function fakeSession(): ModelSession & { reuseNext(count: number): void } {
  let reused = 0;
  return {
    reuseNext(count: number) { reused = count; },
    get lastReusedTokens() { return reused; },
    get totalReusedTokens() { return reused; },
    decide: async () => decision(0.7),
    decideSequence: async (_tokens, _first, _second, steps) => Array.from({ length: steps }, () => decision(0.6)),
    generate: async (): Promise<GenerationResult> => ({ text: 'abc', tokens: [1, 2, 3], stoppedBy: 'eos' }),
    logLikelihood: async () => -1,
    dispose: async () => {},
  };
}

test('each stage counts the tokens it evaluated, not those read from the cache', async () => {
  const inner = fakeSession();
  const session = new MeteredSession(inner, { need: NEED, done: DONE, keep: KEEP, drop: DROP });
  inner.reuseNext(0);
  await session.decide(new Array(100).fill(5), NEED, DONE);           // trigger: 100 new
  inner.reuseNext(100);
  await session.decideSequence(new Array(160).fill(5), KEEP, DROP, 4); // selection: 60 new + 3 chosen tokens
  inner.reuseNext(120);
  await session.decide(new Array(130).fill(5), KEEP, DROP);           // one more selection step: 10 new
  inner.reuseNext(90);
  await session.generate(new Array(150).fill(5), { maxTokens: 8, singleLine: true }); // prompt: 60 new, 3 generated
  expect(session.evaluated).toEqual({ trigger: 100, selection: 73, prompt: 60, generated: 3, reused: 310 });
});

test('a call that failed counts nothing', async () => {
  const inner = fakeSession();
  inner.generate = async () => { throw new Error('model died'); };
  const session = new MeteredSession(inner, {});
  await expect(session.generate([1, 2], { maxTokens: 1, singleLine: true })).rejects.toThrow('model died');
  expect(session.evaluated).toEqual({ trigger: 0, selection: 0, prompt: 0, generated: 0, reused: 0 });
});
