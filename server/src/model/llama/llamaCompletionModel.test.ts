/**
 * The llama adapter against the real node-llama-cpp and tiny GGUF models written by the
 * test setup. Cross-checks the APIs against each other (decide vs logLikelihood, reused vs
 * fresh sessions, decideSequence vs stepwise decide) rather than against fixed numbers.
 */
import { mkdtemp, readFile, rm, truncate, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { writeTinyModel, type TinyModel } from '../../../../test/support/tinyModel.js';
import { GgufWriter } from '../gguf/ggufWriter.js';
import { ContextOverflowError, type CompletionModel, type ModelSession } from '../completionModel.js';
import { createMemoryLogger } from '../../util/logger.js';
import { loadLlamaModel } from './loadLlamaModel.js';
import { sigmoid } from './binaryDecision.js';
import { LlamaSession } from './llamaSession.js';

const PROMPT_SOURCE = `import os
from typing import List


class Config(object):
    def __init__(self, name: str, path=None) -> None:
        self.name = name
        self.path = path
        self.items: List[str] = []

    def add(self, item: str) -> None:
        self.items.append(item)


def load_config(path: str) -> Config:
    config = Config(os.path.basename(path), path)
    with open(path) as handle:
        for line in handle:
`;

let dir: string;
let tiny: TinyModel;
let model: CompletionModel;
let session: ModelSession;
const logger = createMemoryLogger();
const stdoutWrites: unknown[] = [];
const consoleCalls: unknown[] = [];

async function load(file: string): Promise<CompletionModel> {
  const result = await loadLlamaModel({ path: file, threads: 1, gpuLayers: 'auto' }, logger);
  if (result.kind !== 'ok') throw new Error(result.message);
  return result.model;
}

beforeAll(async () => {
  // llama.cpp must never reach stdout: it carries the LSP protocol.
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk: unknown) => {
    stdoutWrites.push(chunk);
    return true;
  });
  for (const method of ['log', 'info', 'warn', 'error', 'debug'] as const) {
    vi.spyOn(console, method).mockImplementation((...args: unknown[]) => void consoleCalls.push(args));
  }
  dir = await mkdtemp(path.join(os.tmpdir(), 'llama-model-test-'));
  // A boosted newline makes multi-line greedy output likely, so the single-line rule is exercised.
  tiny = await writeTinyModel({ path: path.join(dir, 'tiny.gguf'), boostTokens: { 'Ċ': 3 } });
  model = await load(tiny.path);
  session = await model.createSession();
});

afterAll(async () => {
  await model?.dispose();
  vi.restoreAllMocks();
  await rm(dir, { recursive: true, force: true });
});

const prompt = () => model.tokenize(PROMPT_SOURCE);

describe('loading and ModelInfo', () => {
  test('finds FIM, end-of-text and control ids by metadata and vocabulary', () => {
    const { info } = model;
    expect(info).toMatchObject({
      architecture: 'llama',
      name: 'reposhapley-tiny-test',
      contextSize: 512,
      vocabularySize: tiny.tokens.length,
      hasControlTokens: true,
      fimLayout: 'reposhapley',
      addBeginOfText: false,
      threads: 1,
    });
    expect(info.special).toMatchObject({
      fimPrefix: tiny.id('<|fim_prefix|>'),
      fimSuffix: tiny.id('<|fim_suffix|>'),
      fimMiddle: tiny.id('<|fim_middle|>'),
      endOfText: tiny.id('<|endoftext|>'),
      need: tiny.id('<NEED>'),
      done: tiny.id('<DONE>'),
      keep: tiny.id('<KEEP>'),
      drop: tiny.id('<DROP>'),
      select: tiny.id('<SELECT>'),
    });
    expect(info.special.chunkOpen).toEqual(Array.from({ length: 10 }, (_, i) => tiny.id(`<C_${i + 1}>`)));
    expect(info.special.chunkClose).toEqual(Array.from({ length: 10 }, (_, i) => tiny.id(`</C_${i + 1}>`)));
  });

  test('a plain FIM model of another layout, without FIM metadata, has no control tokens', async () => {
    const plainTiny = await writeTinyModel({
      path: path.join(dir, 'plain.gguf'), controlTokens: false, fimLayout: 'starcoder', fimMetadata: false,
    });
    const plain = await load(plainTiny.path);
    try {
      expect(plain.info.hasControlTokens).toBe(false);
      expect(plain.info.fimLayout).toBe('starcoder');
      expect(plain.info.special).toMatchObject({
        fimPrefix: plainTiny.id('<fim_prefix>'),
        fimSuffix: plainTiny.id('<fim_suffix>'),
        fimMiddle: plainTiny.id('<fim_middle>'),
      });
      expect(plain.info.special.need).toBeUndefined();
      expect(plain.info.special.chunkOpen).toBeUndefined();
    } finally {
      await plain.dispose();
    }
  });

  test('llama.cpp warnings reach the logger; the configured context size is used', async () => {
    const own = createMemoryLogger();
    const result = await loadLlamaModel({ path: tiny.path, threads: 1, gpuLayers: 0, contextSize: 1024 }, own);
    if (result.kind !== 'ok') throw new Error(result.message);
    try {
      expect(result.model.info.contextSize).toBe(1024);
      const wide = await result.model.createSession();
      // More than the training context (512) is allowed, and llama.cpp warns about it.
      expect((await wide.decide(Array.from({ length: 700 }, (_, i) => i % 300), 1, 2)).probabilityFirst).toBeGreaterThan(0);
      expect(own.lines.some((line) => line.startsWith('[warn] llama.cpp:'))).toBe(true);
    } finally {
      await result.model.dispose();
    }
  });

  test('threads far above the cores are clamped to the cores, with a warning saying what was asked and used', async () => {
    const own = createMemoryLogger();
    const cores = os.availableParallelism();
    const result = await loadLlamaModel({ path: tiny.path, threads: 256, gpuLayers: 0 }, own);
    if (result.kind !== 'ok') throw new Error(result.message);
    try {
      expect(result.model.info.threads).toBe(cores);
      const warnings = own.lines.filter((line) => line.startsWith('[warn] threads'));
      expect(warnings).toEqual([expect.stringContaining(`threads 256 asked for, ${cores} used`)]);
    } finally {
      await result.model.dispose();
    }
  });

  test('nothing was written to stdout or the console; llama.cpp logs went to the logger', () => {
    expect(stdoutWrites).toEqual([]);
    expect(consoleCalls).toEqual([]);
    expect(logger.lines.some((line) => line.startsWith('[info] loaded reposhapley-tiny-test'))).toBe(true);
  });
});

describe('tokenize', () => {
  test('user text spelling special tokens never yields their ids', () => {
    const text = 'x = "<NEED>" # <|fim_prefix|> <C_1> </C_10> <DONE><|endoftext|>';
    const tokens = model.tokenize(text);
    // The tiny vocabulary appends all special tokens after the byte and merge tokens.
    const firstSpecial = tiny.id('<|endoftext|>');
    expect(tokens.filter((t) => t >= firstSpecial)).toEqual([]);
    expect(tokens).not.toContain(model.info.special.need);
    expect(model.detokenize(tokens)).toBe(text);
  });

  test('merges are used: "def" and "self" are single tokens', () => {
    expect(model.tokenize('def')).toEqual([tiny.id('def')]);
    expect(model.tokenize(' self')).toEqual([tiny.id('Ġself')]);
  });

  test('control tokens detokenize to text only when asked', () => {
    const need = model.info.special.need!;
    expect(model.detokenize([need])).toBe('');
    expect(model.detokenize([need], true)).toBe('<NEED>');
  });
});

describe('decide and logLikelihood', () => {
  test('decide is the two-token softmax and agrees with logLikelihood of one-token targets', async () => {
    const tokens = prompt();
    const { need, done } = model.info.special as { need: number; done: number };
    const decision = await session.decide(tokens, need, done);
    expect(decision.probabilityFirst).toBeGreaterThan(0);
    expect(decision.probabilityFirst).toBeLessThan(1);
    expect(decision.probabilityFirst).toBeCloseTo(sigmoid(decision.logitFirst - decision.logitSecond), 12);
    const llNeed = await session.logLikelihood(tokens, [need]);
    const llDone = await session.logLikelihood(tokens, [done]);
    expect(decision.logitFirst).toBeCloseTo(llNeed, 5);
    expect(decision.logitSecond).toBeCloseTo(llDone, 5);
    expect(decision.probabilityFirst).toBeCloseTo(Math.exp(llNeed) / (Math.exp(llNeed) + Math.exp(llDone)), 6);
  });

  test('logLikelihood of a multi-token target is the chain of one-token ones', async () => {
    const tokens = prompt();
    const target = model.tokenize('            line = line.strip()');
    const whole = await session.logLikelihood(tokens, target);
    let chained = 0;
    for (let t = 0; t < target.length; t++) {
      chained += await session.logLikelihood([...tokens, ...target.slice(0, t)], [target[t]]);
    }
    expect(whole).toBeLessThan(0);
    expect(whole).toBeCloseTo(chained, 4);
    expect(await session.logLikelihood(tokens, [])).toBe(0);
  });

  test('logLikelihood stays aligned when the target crosses an evaluation chunk boundary', async () => {
    const corpus = model.tokenize(PROMPT_SOURCE.repeat(3));
    const tokens = corpus.slice(0, 250);
    const target = corpus.slice(250, 262); // predicted at positions 249..260; chunks split at 256
    const cold = await freshSession();
    const whole = await cold.logLikelihood(tokens, target);
    expect(cold.lastReusedTokens).toBe(0);
    let chained = 0;
    for (let t = 0; t < target.length; t++) {
      chained += await session.logLikelihood([...tokens, ...target.slice(0, t)], [target[t]]);
    }
    // Batches of other sizes take other float paths: 7e-5 apart on an AVX2-only CPU. A
    // misaligned target would be off by whole nats.
    expect(whole).toBeCloseTo(chained, 3);
  });

  test('the first greedy token is at least as likely as any other', async () => {
    const { tokens, first } = await findPromptWithCompleteFirstToken();
    const best = await session.logLikelihood(tokens, [first]);
    let total = 0;
    for (let other = 0; other < model.info.vocabularySize; other++) {
      const ll = await session.logLikelihood(tokens, [other]);
      expect(ll).toBeLessThanOrEqual(best + 1e-6);
      total += Math.exp(ll);
    }
    expect(total).toBeCloseTo(1, 4); // a full distribution, not a renormalized subset
  });

  test('topNextTokens are the most probable tokens generation may pick, in order, with their ln P', async () => {
    const tokens = prompt();
    const top = await (session as LlamaSession).topNextTokens(tokens, 5);
    expect(top).toHaveLength(5);
    for (let i = 0; i < top.length; i++) {
      expect(top[i].logProbability).toBeCloseTo(await session.logLikelihood(tokens, [top[i].token]), 5);
      if (i > 0) expect(top[i].logProbability).toBeLessThanOrEqual(top[i - 1].logProbability);
    }
    // Any token more probable than the fifth is one generation never writes (a stop or control token).
    const listed = new Set(top.map((t) => t.token));
    const special = new Set(Object.values(model.info.special).flat().filter((id): id is number => typeof id === 'number'));
    for (let other = 0; other < model.info.vocabularySize; other++) {
      if (listed.has(other)) continue;
      if (await session.logLikelihood(tokens, [other]) > top[4].logProbability + 1e-6) expect(special.has(other)).toBe(true);
    }
    const greedy = await session.generate(tokens, { maxTokens: 1, singleLine: false });
    if (greedy.tokens.length === 1) expect(greedy.tokens[0]).toBe(top[0].token);
  });

  test('decideSequence equals stepwise decide with the argmax token appended', async () => {
    const { keep, drop, select } = model.info.special as { keep: number; drop: number; select: number };
    const tokens = [...prompt(), select];
    const sequence = await session.decideSequence(tokens, keep, drop, 6);
    expect(sequence).toHaveLength(6);
    const current = [...tokens];
    for (const step of sequence) {
      const single = await session.decide(current, keep, drop);
      expect(step.probabilityFirst).toBeCloseTo(single.probabilityFirst, 5);
      current.push(single.probabilityFirst >= 0.5 ? keep : drop);
    }
    expect(await session.decideSequence(tokens, keep, drop, 0)).toEqual([]);
  });
});

describe('prefix reuse', () => {
  test('a shared prefix is reused and results equal a fresh session', async () => {
    const base = prompt();
    const first = [...base, ...model.tokenize('            print(line)')];
    const second = [...base, ...model.tokenize('            config.add(line)')];
    const common = commonPrefixLength(first, second);
    const { need, done } = model.info.special as { need: number; done: number };
    const reusing = await model.createSession();
    const fresh = await model.createSession();
    try {
      await reusing.decide(first, need, done);
      const totalBefore = reusing.totalReusedTokens;
      const reused = await reusing.decide(second, need, done);
      expect(reusing.lastReusedTokens).toBe(common);
      expect(reusing.totalReusedTokens).toBe(totalBefore + common);
      const cold = await fresh.decide(second, need, done);
      expect(fresh.lastReusedTokens).toBe(0);
      expect(Math.abs(reused.probabilityFirst - cold.probabilityFirst)).toBeLessThan(1e-5);
      expect(Math.abs(reused.logitFirst - cold.logitFirst)).toBeLessThan(1e-4);

      const options = { maxTokens: 24, singleLine: false };
      const warmText = await reusing.generate(second, options);
      expect(reusing.lastReusedTokens).toBe(second.length - 1);
      const coldText = await (await freshSession()).generate(second, options);
      expect(warmText).toEqual(coldText);
    } finally {
      await reusing.dispose();
      await fresh.dispose();
    }
  });
});

describe('shifted reuse (kvShiftReuse)', () => {
  test('a window that slid by a line keeps its cached remainder, shifted; without the option only the header is kept', async () => {
    const result = await loadLlamaModel({ path: tiny.path, threads: 1, gpuLayers: 'auto', shiftedReuseMinTokens: 8 }, logger);
    if (result.kind !== 'ok') throw new Error(result.message);
    const shifting = result.model;
    const lines = PROMPT_SOURCE.split(/(?<=\n)/).map((line) => shifting.tokenize(line));
    const header = shifting.tokenize('# config.py\n');
    const cursorLine = shifting.tokenize('            print(');
    const before = [...header, ...lines.slice(0, -2).flat(), ...cursorLine];
    // The cursor moved down a line: the window dropped its first two lines and gained one.
    const after = [...header, ...lines.slice(2).flat(), ...cursorLine];
    const kept = lines.slice(2, -2).flat().length;
    const { need, done } = shifting.info.special as { need: number; done: number };
    const [withShift, withoutShift] = [await shifting.createSession(), await model.createSession()];
    try {
      for (const session of [withShift, withoutShift]) await session.decide(before, need, done);
      const shifted = await withShift.decide(after, need, done);
      expect(withShift.lastReusedTokens).toBe(header.length + kept);
      const exact = await withoutShift.decide(after, need, done);
      expect(withoutShift.lastReusedTokens).toBe(commonPrefixLength(before, after));
      expect(withoutShift.lastReusedTokens).toBeLessThan(header.length + 2);
      // Not exact (the kept tokens once followed two more lines), but a distribution over the same pair.
      expect(shifted.probabilityFirst).toBeGreaterThan(0);
      expect(Math.abs(shifted.probabilityFirst - exact.probabilityFirst)).toBeLessThan(0.5);
      // The cache holds exactly the new prompt's beginning: asking again reuses all of it.
      await withShift.decide(after, need, done);
      expect(withShift.lastReusedTokens).toBe(after.length - 1);
      const text = await withShift.generate(after, { maxTokens: 8, singleLine: false });
      expect(withShift.lastReusedTokens).toBe(after.length - 1);
      expect(text.tokens.length).toBeGreaterThan(0);
    } finally {
      await withShift.dispose();
      await withoutShift.dispose();
      await shifting.dispose();
    }
  });
});

describe('generate', () => {
  test('respects maxTokens and is deterministic', async () => {
    const tokens = model.tokenize('    return');
    const result = await session.generate(tokens, { maxTokens: 7, singleLine: false });
    expect(result.stoppedBy).toBe('max-tokens');
    expect(result.tokens.length).toBeLessThanOrEqual(7);
    expect(result.tokens.length).toBeGreaterThan(0);
    expect(model.detokenize(result.tokens)).toBe(result.text);
    expect(result.text).not.toMatch(/\uFFFD$/);
    const longer = await session.generate(tokens, { maxTokens: 20, singleLine: false });
    expect(longer.tokens.slice(0, result.tokens.length)).toEqual(result.tokens);
    expect(await session.generate(tokens, { maxTokens: 7, singleLine: false })).toEqual(result);
  });

  test('single-line output stops before the first newline after content', async () => {
    const { tokens, free } = await findMultiLineGeneration();
    const newline = free.text.indexOf('\n', free.text.search(/\S/));
    const single = await session.generate(tokens, { maxTokens: 48, singleLine: true });
    expect(single.stoppedBy).toBe('newline');
    expect(single.text).not.toContain('\n');
    expect(single.text).toBe(free.text.slice(0, newline).replace(/\r$/, ''));
    expect(single.text.length).toBeGreaterThan(0);
    expect(single.text.startsWith(model.detokenize(single.tokens))).toBe(true);
  });

  test('stop strings end the text before them', async () => {
    const { tokens, free } = await findMultiLineGeneration();
    // A two-character stop string from the output, avoiding U+FFFD (partial characters).
    const content = free.text.search(/\S/);
    let at = content + 1;
    while (at + 2 <= free.text.length && free.text.slice(at, at + 2).includes('\uFFFD')) at++;
    const stop = free.text.slice(at, at + 2);
    expect(stop).toHaveLength(2);
    const result = await session.generate(tokens, { maxTokens: 48, singleLine: false, stopStrings: ['\u0000never', stop] });
    expect(result.stoppedBy).toBe('stop-string');
    expect(result.text).toBe(free.text.slice(0, free.text.indexOf(stop)));
  });

  test('end of text stops generation and is not included', async () => {
    const eosTiny = await writeTinyModel({ path: path.join(dir, 'eos.gguf'), boostTokens: { '<|endoftext|>': 8 } });
    const eosModel = await load(eosTiny.path);
    try {
      const eosSession = await eosModel.createSession();
      const results = await Promise.all(['def', 'x =', '    return', 'import'].map((text) =>
        eosSession.generate(eosModel.tokenize(text), { maxTokens: 64, singleLine: false })));
      const stopped = results.filter((r) => r.stoppedBy === 'eos');
      expect(stopped.length).toBeGreaterThan(0);
      for (const r of stopped) expect(r.tokens).not.toContain(eosTiny.id('<|endoftext|>'));
    } finally {
      await eosModel.dispose();
    }
  });

  test('an abort stops generation promptly with the partial text', async () => {
    // Precondition: a free run long enough to interrupt (the random model loops without the loop penalty).
    const tokens = model.tokenize('    return');
    const options = { maxTokens: 300, singleLine: false, loopPenalty: 0 };
    const full = await session.generate(tokens, options);
    expect(full.stoppedBy).toBe('max-tokens');
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 1);
    const aborted = await session.generate(tokens, options, controller.signal);
    expect(aborted.stoppedBy).toBe('aborted');
    expect(aborted.tokens.length).toBeLessThan(300);
    expect(full.text.startsWith(aborted.text)).toBe(true);
  });

  test('the loop penalty breaks a greedy loop that the plain greedy run repeats', async () => {
    const tokens = model.tokenize('    return');
    const plain = await session.generate(tokens, { maxTokens: 120, singleLine: false, loopPenalty: 0 });
    const penalized = await session.generate(tokens, { maxTokens: 120, singleLine: false });
    const mostRepeated = (ids: number[]) => Math.max(...[...new Set(ids)].map((id) => ids.filter((t) => t === id).length));
    expect(mostRepeated(penalized.tokens)).toBeLessThan(mostRepeated(plain.tokens));
  });

  test('a request aborted while queued is answered at once and never runs', async () => {
    const tokens = model.tokenize('    return');
    const controller = new AbortController();
    const busy = session.generate(tokens, { maxTokens: 200, singleLine: false });
    const queued = session.generate(tokens, { maxTokens: 200, singleLine: false }, controller.signal);
    const queuedDecide = session.decide(tokens, 1, 2, controller.signal);
    controller.abort();
    expect(await queued).toEqual({ text: '', tokens: [], stoppedBy: 'aborted' });
    await expect(queuedDecide).rejects.toMatchObject({ name: 'AbortError' });
    expect((await busy).stoppedBy).not.toBe('aborted');
  });
});

describe('session guards', () => {
  test('concurrent operations on one session are serialized', async () => {
    const { need, done } = model.info.special as { need: number; done: number };
    const a = [...prompt(), ...model.tokenize('x')];
    const b = model.tokenize('class Node:\n    def insert(self, key):');
    const sequential = [await session.decide(a, need, done), await session.decide(b, need, done)];
    const concurrent = await Promise.all([session.decide(a, need, done), session.decide(b, need, done),
      session.logLikelihood(a, [need])]);
    expect(concurrent[0].probabilityFirst).toBeCloseTo(sequential[0].probabilityFirst, 6);
    expect(concurrent[1].probabilityFirst).toBeCloseTo(sequential[1].probabilityFirst, 6);
    expect(concurrent[2]).toBeCloseTo(sequential[0].logitFirst, 5);
  });

  test('operations larger than the context are rejected with ContextOverflowError', async () => {
    const long = Array.from({ length: 600 }, (_, i) => i % 200);
    await expect(session.decide(long, 1, 2)).rejects.toBeInstanceOf(ContextOverflowError);
    await expect(session.generate(long.slice(0, 512), { maxTokens: 64, singleLine: false }))
      .rejects.toBeInstanceOf(ContextOverflowError);
    await expect(session.decideSequence(long.slice(0, 510), 1, 2, 10)).rejects.toBeInstanceOf(ContextOverflowError);
    // The session still works afterwards.
    expect((await session.decide(long.slice(0, 100), 1, 2)).probabilityFirst).toBeGreaterThan(0);
  });

  test('generation stops where the context ends instead of overflowing it', async () => {
    const prompt = Array.from({ length: 500 }, (_, i) => i % 200);
    const result = await session.generate(prompt, { maxTokens: 64, singleLine: false });
    expect(result.tokens.length).toBeLessThanOrEqual(512 - 500);
    expect(result.stoppedBy).not.toBe('aborted');
  });

  test('token ids outside the vocabulary are rejected before llama.cpp sees them', async () => {
    await expect(session.decide([1, 2, 99_999], 1, 2)).rejects.toThrow(`token id 99999 at position 2 is outside the vocabulary (${tiny.tokens.length})`);
    await expect(session.decide([1, 2], 1, -1)).rejects.toThrow(RangeError);
    await expect(session.logLikelihood([1, 2], [3, 5000])).rejects.toThrow(RangeError);
    expect((await session.decide([1, 2, 3], 1, 2)).probabilityFirst).toBeGreaterThan(0);
  });

  test('an aborted decide rejects with an AbortError', async () => {
    await expect(session.decide(prompt(), 1, 2, AbortSignal.abort())).rejects.toMatchObject({ name: 'AbortError' });
  });
});

describe('loadLlamaModel failures are values with the fix', () => {
  test('missing and empty paths', async () => {
    const missing = await loadLlamaModel({ path: path.join(dir, 'absent.gguf'), threads: 1, gpuLayers: 0 }, logger);
    expect(missing).toMatchObject({ kind: 'missing' });
    expect(missing.kind !== 'ok' && missing.message).toMatch(/Model file not found: .*absent\.gguf.*reposhapley\.modelPath/);
    expect(await loadLlamaModel({ path: '', threads: 1, gpuLayers: 0 }, logger)).toMatchObject({ kind: 'missing' });
  });

  test('random bytes, a truncated model and a GGUF without a tokenizer are invalid', async () => {
    const random = path.join(dir, 'random.gguf');
    await writeFile(random, Buffer.from(Array.from({ length: 10_000 }, (_, i) => (i * 2654435761) % 256)));
    const truncated = path.join(dir, 'truncated.gguf');
    const bytes = await readFile(tiny.path);
    await writeFile(truncated, bytes);
    await truncate(truncated, Math.floor(bytes.length * 0.6));
    const bare = path.join(dir, 'bare.gguf');
    await new GgufWriter().addKv('general.architecture', 'llama').write(bare);
    for (const [file, pattern] of [[random, /bad magic/], [truncated, /truncated/], [bare, /lacks tokenizer/]] as const) {
      const result = await loadLlamaModel({ path: file, threads: 1, gpuLayers: 0 }, logger);
      expect(result.kind).toBe('invalid');
      expect(result.kind !== 'ok' && result.message).toMatch(pattern);
    }
  });
});

/** A prompt whose greedy first token is an ordinary, complete token (asserted, not assumed). */
async function findPromptWithCompleteFirstToken(): Promise<{ tokens: number[]; first: number }> {
  for (const text of [PROMPT_SOURCE, '    return', 'import os\nimport', 'x = 1\ny =', 'def load_config(path']) {
    const tokens = model.tokenize(text);
    const generated = await session.generate(tokens, { maxTokens: 1, singleLine: false });
    if (generated.tokens.length === 1) return { tokens, first: generated.tokens[0] };
  }
  throw new Error('precondition: no prompt gave a complete first token');
}

function commonPrefixLength(a: number[], b: number[]): number {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return i;
}

let spare: ModelSession | undefined;
/** A session with an empty cache, disposed with the model. */
async function freshSession(): Promise<ModelSession> {
  await spare?.dispose();
  spare = await model.createSession();
  return spare;
}

/** A prompt whose free greedy output has a newline after some content (asserted, not assumed). */
async function findMultiLineGeneration() {
  for (const text of ['    return', 'import os\nimport', 'x = 1\ny =', 'def load_config(path', 'class Node:\n    def']) {
    const tokens = model.tokenize(text);
    const free = await session.generate(tokens, { maxTokens: 48, singleLine: false });
    if (/\S[^\n]*\n/.test(free.text) && free.text.search(/\S/) + 3 <= free.text.length) return { tokens, free };
  }
  throw new Error('precondition: no prompt made the tiny model write a newline after content');
}
