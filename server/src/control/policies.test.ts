/** Orchestration tests of the policies with a scripted fake session (the real model is tested in model/). */
import { describe, expect, test } from 'vitest';
import type { BinaryDecision, GenerationOptions, ModelInfo, ModelSession, SpecialTokenIds } from '../model/completionModel.js';
import type { PackedChunk } from '../prompt/budget.js';
import { LineTokenizer } from '../prompt/lineTokenizer.js';
import { chooseLayout, layoutByName } from '../prompt/layouts.js';
import { toTokenIds } from '../prompt/segments.js';
import { planPrompt } from '../prompt/sequences.js';
import { fullRetrievalPolicy } from './fullRetrieval.js';
import { noRetrievalPolicy } from './noRetrieval.js';
import { DecisionCache } from './decisionCache.js';
import { createRepoShapleyPolicy, triggerProbability } from './repoShapley.js';
import type { PolicyContext } from './types.js';

const IDS: SpecialTokenIds = {
  fimPrefix: 1, fimSuffix: 2, fimMiddle: 3, endOfText: 4, need: 5, done: 6, keep: 7, drop: 8, select: 9,
  chunkOpen: Array.from({ length: 10 }, (_, i) => 10 + i), chunkClose: Array.from({ length: 10 }, (_, i) => 20 + i),
};

/** Records every call; answers decisions from a script. */
class ScriptedSession implements ModelSession {
  calls: { op: string; tokens: number[] }[] = [];
  lastReusedTokens = 0;
  totalReusedTokens = 0;
  constructor(private readonly pNeed: number, private readonly pKeep: number[]) {}
  async decide(tokens: number[]): Promise<BinaryDecision> {
    this.calls.push({ op: 'decide', tokens });
    return { probabilityFirst: this.pNeed, logitFirst: 0, logitSecond: 0 };
  }
  async decideSequence(tokens: number[], _a: number, _b: number, steps: number): Promise<BinaryDecision[]> {
    this.calls.push({ op: 'select', tokens });
    return this.pKeep.slice(0, steps).map((p) => ({ probabilityFirst: p, logitFirst: 0, logitSecond: 0 }));
  }
  async generate(tokens: number[], _options: GenerationOptions) {
    this.calls.push({ op: 'generate', tokens });
    return { text: 'x', tokens: [42], stoppedBy: 'eos' as const };
  }
  async logLikelihood(): Promise<number> { return 0; }
  async dispose(): Promise<void> {}
}

const tokenizer = new LineTokenizer({ tokenize: (t) => [...t].map((c) => c.charCodeAt(0) + 1000) });

function context(session: ScriptedSession, packedCount: number): PolicyContext & { retrievals: number } {
  const packed: PackedChunk[] = Array.from({ length: packedCount }, (_, i) => ({
    candidateIndex: i, text: `c${i}\n`, ids: tokenizer.text(`c${i}\n`), reduced: false,
  }));
  const ctx = {
    retrievals: 0, layout: layoutByName('reposhapley'), session, special: IDS, signal: new AbortController().signal,
    inFile: planPrompt('ab', 'cd', [], { prefixTokens: 100, suffixTokens: 100, chunkTokens: 100 }, tokenizer),
    toIds: (segments: Parameters<typeof toTokenIds>[0]) => toTokenIds(segments, IDS),
    generation: { maxTokens: 8, singleLine: true }, needThreshold: 0.5, triggerSoftmax: 'pair' as const,
    async retrieveAndPack() { ctx.retrievals++; return { candidates: [], packed }; },
  };
  return ctx;
}

const IN_FILE = [1, 1097, 1098, 2, 1099, 1100];

describe('policies', () => {
  test('none never retrieves and generates from <PFX>Xp<SFX>Xs<DONE><MID>', async () => {
    const session = new ScriptedSession(0.9, []);
    const ctx = context(session, 3);
    const result = await noRetrievalPolicy.run(ctx);
    expect(ctx.retrievals).toBe(0);
    expect(session.calls).toEqual([{ op: 'generate', tokens: [...IN_FILE, 6, 3] }]);
    expect(result.decision).toBe('done');
  });

  test('full keeps every packed chunk', async () => {
    const session = new ScriptedSession(0.1, []);
    const result = await fullRetrievalPolicy.run(context(session, 2));
    expect(result.kept).toEqual([0, 1]);
    expect(session.calls.map((c) => c.op)).toEqual(['generate']);
    expect(session.calls[0]!.tokens.slice(IN_FILE.length)).toEqual([5, 10, 1099, 1048, 1010, 20, 11, 1099, 1049, 1010, 21, 6, 3]);
  });

  test('reposhapley below t_c answers DONE without retrieving (Algorithm 1 lines 4-8)', async () => {
    const session = new ScriptedSession(0.2, []);
    const ctx = context(session, 3);
    const result = await createRepoShapleyPolicy().run(ctx);
    expect(ctx.retrievals).toBe(0);
    expect(result.decision).toBe('done');
    expect(session.calls.map((c) => c.op)).toEqual(['decide', 'generate']);
    expect(session.calls[0]!.tokens).toEqual(IN_FILE);
  });

  test('reposhapley at or above t_c selects per chunk and generates with the kept ones, renumbered', async () => {
    const session = new ScriptedSession(0.5, [0.9, 0.3, 0.6]);
    const result = await createRepoShapleyPolicy().run(context(session, 3));
    expect(result.decision).toBe('need');
    expect(result.kept).toEqual([0, 2]);
    expect(session.calls.map((c) => c.op)).toEqual(['decide', 'select', 'generate']);
    expect(session.calls[1]!.tokens.at(-1)).toBe(9);
    const generation = session.calls[2]!.tokens.slice(IN_FILE.length);
    expect(generation).toEqual([5, 10, 1099, 1048, 1010, 20, 11, 1099, 1050, 1010, 21, 6, 3]);
  });

  test('repo-fim control: each candidate is read, then decided, the choice appended before the next', async () => {
    const ids: SpecialTokenIds = { ...IDS, repoName: 30, fileSeparator: 31 };
    const answers = [0.8, 0.9, 0.3, 0.6];
    const session = new (class extends ScriptedSession {
      override async decide(tokens: number[]): Promise<BinaryDecision> {
        this.calls.push({ op: 'decide', tokens });
        return { probabilityFirst: answers.shift()!, logitFirst: 0, logitSecond: 0 };
      }
    })(0, []);
    const derived = { hasControlTokens: true, declaredLayout: 'repo-fim', echoLines: 0, special: ids } as unknown as ModelInfo;
    const layout = chooseLayout(derived);
    const ctx = context(session, 3);
    const inFile = layout.planInFile({ prefix: 'ab', suffix: 'cd', path: 'f.py', repoName: 'r' }, { prefixTokens: 100, suffixTokens: 100, chunkTokens: 100 }, tokenizer);
    const result = await createRepoShapleyPolicy().run({
      ...ctx, layout, special: ids, inFile, toIds: (segments) => toTokenIds(segments, ids),
    });
    expect(result.kept).toEqual([0, 2]);
    expect(result.keepProbabilities).toEqual([0.9, 0.3, 0.6]);
    const [trigger, first, second, third] = session.calls.map((c) => c.tokens);
    // The trigger: <|repo_name|>r\n<|file_sep|>f.py\n<PFX>ab<SFX>cd<MID>, where the completion starts.
    expect(trigger![0]).toBe(30);
    expect(trigger!.slice(-4)).toEqual([2, 1099, 1100, 3]);
    // <NEED><C_1>c0\n</C_1>, then q_1 = KEEP and <C_2>c1\n</C_2>, then q_2 = DROP and <C_3>...
    expect(first!.slice(trigger!.length)).toEqual([5, 10, 1099, 1048, 1010, 20]);
    expect(second!.slice(first!.length)).toEqual([7, 11, 1099, 1049, 1010, 21]);
    expect(third!.slice(second!.length)).toEqual([8, 12, 1099, 1050, 1010, 22]);
    // Generation is the repository format with the kept chunks, best-ranked last.
    const generation = session.calls.at(-1)!;
    expect(generation.op).toBe('generate');
    expect(generation.tokens.at(-1)).toBe(3);
    expect(generation.tokens).not.toContain(5);
  });

  test('decisions are reused on the same line with the same candidates, and made afresh elsewhere', async () => {
    const cache = new DecisionCache();
    const run = async (line: number, packedCount: number) => {
      const session = new ScriptedSession(0.7, [0.9, 0.2, 0.6]);
      const result = await createRepoShapleyPolicy().run({ ...context(session, packedCount), decisions: cache.scope('a.py', line, 'model') });
      return { ops: session.calls.map((c) => c.op), kept: result.kept, p: result.needProbability };
    };
    expect(await run(3, 3)).toEqual({ ops: ['decide', 'select', 'generate'], kept: [0, 2], p: 0.7 });
    expect(await run(3, 3)).toEqual({ ops: ['generate'], kept: [0, 2], p: 0.7 });
    expect((await run(3, 2)).ops).toEqual(['select', 'generate']); // other candidates: select again
    expect((await run(4, 2)).ops).toEqual(['decide', 'select', 'generate']); // another line: decide again
    const other = new ScriptedSession(0.7, [0.9]);
    await createRepoShapleyPolicy().run({ ...context(other, 1), decisions: cache.scope('a.py', 4, 'another model') });
    expect(other.calls.map((c) => c.op)).toEqual(['decide', 'select', 'generate']);
  });

  test('no-trigger ablation always retrieves', async () => {
    const session = new ScriptedSession(0.0, [0.1]);
    const result = await createRepoShapleyPolicy({ alwaysNeed: true }).run(context(session, 1));
    expect(result.decision).toBe('need');
    expect(result.kept).toEqual([]);
    expect(session.calls.map((c) => c.op)).toEqual(['select', 'generate']);
  });
});

describe('triggerProbability', () => {
  const decision = { probabilityFirst: 0.8, logitFirst: -2, logitSecond: -3.4, vocabularyProbabilityFirst: 0.003 };

  test('pair: the two-token softmax of Algorithm 1; vocabulary: P(<NEED>) among every token', () => {
    expect(triggerProbability(decision, 'pair')).toBe(0.8);
    expect(triggerProbability(decision, 'vocabulary')).toBe(0.003);
  });

  test('a backend that reports only the two tokens cannot serve a vocabulary trigger, and says so', () => {
    const twoTokens = { probabilityFirst: 0.8, logitFirst: -2, logitSecond: -3.4 };
    expect(() => triggerProbability(twoTokens, 'vocabulary')).toThrow(/whole vocabulary.*llama-server/);
    expect(triggerProbability(twoTokens, 'pair')).toBe(0.8);
  });
});
