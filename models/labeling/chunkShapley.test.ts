/** ChunkShapley on the real node-llama-cpp with a tiny generated GGUF (random weights). */
import { mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { CompletionModel, ModelSession } from '../../server/src/model/completionModel.js';
import { loadLlamaModel } from '../../server/src/model/llama/loadLlamaModel.js';
import { LineTokenizer } from '../../server/src/prompt/lineTokenizer.js';
import { layoutByName } from '../../server/src/prompt/layouts.js';
import { toTokenIds } from '../../server/src/prompt/segments.js';
import { planPrompt } from '../../server/src/prompt/sequences.js';
import type { Candidate } from '../../server/src/retrieval/types.js';
import { silentLogger } from '../../server/src/util/logger.js';
import { writeTinyModel } from '../../test/support/tinyModel.js';
import { DEFAULT_CHUNKSHAPLEY_OPTIONS, runChunkShapley } from './chunkShapley.js';
import { surrogateGame } from './shapley.js';

let model: CompletionModel;
let session: ModelSession;

beforeAll(async () => {
  const dir = path.join(os.tmpdir(), `reposhapley-labeling-${process.pid}`);
  mkdirSync(dir, { recursive: true });
  const tiny = await writeTinyModel({ path: path.join(dir, 'tiny.gguf'), contextLength: 2048 });
  const loaded = await loadLlamaModel({ path: tiny.path, threads: 1, gpuLayers: 0 }, silentLogger);
  if (loaded.kind !== 'ok') throw new Error(loaded.message);
  model = loaded.model;
  session = await model.createSession();
});

afterAll(async () => {
  await session?.dispose();
  await model?.dispose();
});

function candidate(relPath: string, text: string): Candidate {
  return { chunk: { id: relPath, relPath, kind: 'window', startLine: 0, endLine: text.split('\n').length }, text, sources: ['jaccard'], score: 1 };
}

test('probes, Shapley values, pool and labels are consistent on a real generator', async () => {
  const tokenizer = new LineTokenizer(model);
  const candidates = [
    candidate('shop/pricing.py', 'def with_tax(amount, rate=0.2):\n    return amount * (1 + rate)'),
    candidate('shop/cart.py', 'class Cart:\n    def total(self):\n        return sum(self.items)'),
    candidate('shop/util.py', 'def helper():\n    return 42'),
  ];
  const plan = planPrompt('from shop.pricing import with_tax\n\ndef gross(net):\n    return ', '\n', candidates,
    { prefixTokens: 400, suffixTokens: 50, chunkTokens: 600 }, tokenizer);
  const target = { text: 'with_tax(net)', ids: tokenizer.text('with_tax(net)') };
  const options = { ...DEFAULT_CHUNKSHAPLEY_OPTIONS, generation: { maxTokens: 8, singleLine: true } };
  const reusedBefore = session.totalReusedTokens;
  const result = await runChunkShapley(session, { plan, target, special: model.info.special }, options);

  expect(plan.packed).toHaveLength(3);
  expect(result.deltas).toHaveLength(3);
  expect(result.likelihoodEmpty).toBeLessThan(0);
  result.deltas.forEach((d, i) => expect(d).toBeCloseTo(result.likelihoodSingles[i]! - result.likelihoodEmpty, 12));
  const game = surrogateGame(result.deltas, options.beta);
  expect(result.phi.reduce((a, b) => a + b, 0)).toBeCloseTo(game.value(0b111), 12);
  expect(result.pool.length).toBeGreaterThanOrEqual(3);
  for (const verified of result.pool) {
    expect(verified.mask).toBeGreaterThan(0);
    expect(verified.es).toBeGreaterThanOrEqual(0);
    expect(verified.es).toBeLessThanOrEqual(100);
  }
  if (result.label.kind === 'label') {
    expect(result.keep.filter(Boolean).length).toBeGreaterThan(0);
    expect(result.label.retrieval).toBe(result.label.best.es - result.empty.es <= 0 ? 'done' : 'need');
  } else {
    expect(result.keep).toEqual([false, false, false]);
  }
  // Every probe and decode shares the in-file prefix: the session reuses it.
  expect(session.totalReusedTokens - reusedBefore).toBeGreaterThan(plan.prefix.ids.length * 3);
});

test('in the repository layout (chunks first) the ∅ decode reuses its probe\'s prompt instead of a second prefill', async () => {
  const repoFim = layoutByName('repo-fim');
  const tokenizer = new LineTokenizer(model);
  const inFile = repoFim.planInFile({ prefix: 'def gross(net):\n    return ', suffix: '\n', path: 'shop/a.py', repoName: 'shop' },
    { prefixTokens: 400, suffixTokens: 50, chunkTokens: 600 }, tokenizer);
  const plan = { ...inFile, packed: repoFim.pack([candidate('shop/pricing.py', 'def with_tax(amount):\n    return amount')], { prefixTokens: 400, suffixTokens: 50, chunkTokens: 600 }, tokenizer) };
  const target = { text: 'with_tax(net)', ids: tokenizer.text('with_tax(net)') };
  // Spy on the session: record how much each generate reused.
  const reusedAtGenerate: number[] = [];
  const spy: typeof session = Object.create(session);
  spy.generate = async (...args) => {
    const result = await session.generate(...args);
    reusedAtGenerate.push(session.lastReusedTokens);
    return result;
  };
  // The tiny vocabulary has no repository markers; any two ids stand in (only caching is under test).
  const special = { ...model.info.special, repoName: model.info.special.fimPrefix, fileSeparator: model.info.special.fimSuffix };
  await runChunkShapley(spy, { plan, target, special, layout: repoFim }, { ...DEFAULT_CHUNKSHAPLEY_OPTIONS, generation: { maxTokens: 4, singleLine: true } });
  // The first decode is ∅'s, straight after its probe: all but the last prompt token come from the cache.
  const emptyPrompt = toTokenIds(repoFim.generation({ ...plan, packed: [] }, []), special);
  expect(reusedAtGenerate[0]).toBeGreaterThanOrEqual(emptyPrompt.length - 1);
});
