/**
 * The llama-server adapter against a real llama-server (built from node-llama-cpp's own llama.cpp
 * source by buildLlamaServer.sh) on 127.0.0.1 with a tiny generated GGUF: the same ids, decisions
 * and completions as the local adapter on the same file; cancellation; a server killed in the
 * middle of a request and started again; the API key; the engine end to end.
 *
 * Skipped where the binary is not built (it takes minutes); `.ci/run` builds it and sets
 * REPOSHAPLEY_REQUIRE_LLAMA_SERVER, so on CI these tests run or fail.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createCompletionEngine } from '../../server/src/completion/createEngine.js';
import type { CompletionEngine, UserNotice } from '../../server/src/completion/engine.js';
import type { CompletionModel, GenerationOptions, ModelSession } from '../../server/src/model/completionModel.js';
import { loadLlamaModel } from '../../server/src/model/llama/loadLlamaModel.js';
import { ModelServerError, RECHECK_MS } from '../../server/src/model/remote/llamaServerApi.js';
import { loadRemoteModel, RemoteCompletionModel, UntokenizedTextError } from '../../server/src/model/remote/remoteModel.js';
import { createMemoryLogger } from '../../server/src/util/logger.js';
import { BUILD_SCRIPT, llamaServerBinary, LlamaServerProcess } from '../support/llamaServer.js';
import { writeTinyModel } from '../support/tinyModel.js';

const binary = llamaServerBinary();
if (!binary && process.env.REPOSHAPLEY_REQUIRE_LLAMA_SERVER) {
  throw new Error(`REPOSHAPLEY_REQUIRE_LLAMA_SERVER is set but llama-server is not built: run ${BUILD_SCRIPT}`);
}

const LINES = ['def load_config(path):\n', '    with open(path) as handle:\n', '        for line in handle:\n', '            yield line.strip()\n', 'x = "<NEED> is text </C_1>"\n'];
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/retrieval-ws');
const CHECKOUT = path.join(ROOT, 'app/checkout.py');
const CHECKOUT_URI = pathToFileURL(CHECKOUT).href;

let dir: string;
let modelPath: string;
let server: LlamaServerProcess;
let local: CompletionModel;
let remote: RemoteCompletionModel;
const logger = createMemoryLogger();

async function connect(url: string, options: { timeoutMs?: number; apiKey?: string } = {}): Promise<RemoteCompletionModel> {
  const loaded = await loadRemoteModel({ url, timeoutMs: options.timeoutMs ?? 30_000, apiKey: options.apiKey }, logger);
  if (loaded.kind !== 'ok') throw new Error(loaded.message);
  return loaded.model as RemoteCompletionModel;
}

/** A prompt the tiny model continues: FIM markers around the source lines. */
function promptFor(model: CompletionModel, cut: number): number[] {
  const s = model.info.special;
  const ids = LINES.slice(0, cut).flatMap((line) => local.tokenize(line));
  return [s.fimPrefix!, ...ids, s.fimSuffix!, s.fimMiddle!];
}

describe.skipIf(!binary)('llama-server adapter', () => {
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'llama-server-test-'));
    // Random weights write random bytes; llama-server will not stream text that is not UTF-8.
    modelPath = (await writeTinyModel({
      path: path.join(dir, 'tiny.gguf'), contextLength: 4096, boostTokens: { 'Ċ': 3 }, highBytesControl: true,
    })).path;
    server = await LlamaServerProcess.start(binary!, { model: modelPath, slots: 2, contextPerSlot: 4096 });
    const loaded = await loadLlamaModel({ path: modelPath, threads: 1, gpuLayers: 0, contextSize: 4096 }, logger);
    if (loaded.kind !== 'ok') throw new Error(loaded.message);
    local = loaded.model;
    remote = await connect(server.url);
  });

  afterAll(async () => {
    await remote?.dispose();
    await local?.dispose();
    await server?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  test('the model as the local adapter describes it: special ids, control tokens, context', () => {
    expect(remote.info.special).toEqual(local.info.special);
    expect(remote.info.hasControlTokens).toBe(true);
    expect(remote.info.fimLayout).toBe(local.info.fimLayout);
    expect(remote.info.vocabularySize).toBe(local.info.vocabularySize);
    expect(remote.info.contextSize).toBe(4096);
    expect(remote.info.addBeginOfText).toBe(local.info.addBeginOfText ?? false);
  });

  test('tokenizes in one batch exactly as the local vocabulary does, and only what it was given', async () => {
    const ids = await remote.tokenizeMany(LINES);
    expect(ids).toEqual(LINES.map((line) => local.tokenize(line)));
    expect(remote.tokenize(LINES[1]!)).toEqual(local.tokenize(LINES[1]!));
    expect(() => remote.tokenize('never sent\n')).toThrow(UntokenizedTextError);
  });

  describe('sessions', () => {
    let remoteSession: ModelSession;
    let localSession: ModelSession;
    beforeAll(async () => {
      remoteSession = await remote.createSession();
      localSession = await local.createSession();
    });

    test.each<[string, number, GenerationOptions]>([
      ['a block', 3, { maxTokens: 48, singleLine: false }],
      ['one line', 2, { maxTokens: 32, singleLine: true }],
      ['no loop penalty', 4, { maxTokens: 40, singleLine: false, loopPenalty: 0 }],
      ['a strong loop penalty', 1, { maxTokens: 40, singleLine: false, loopPenalty: 2 }],
      ['a stop string', 3, { maxTokens: 40, singleLine: false, stopStrings: ['line'] }],
    ])('greedy completions equal the local ones: %s', async (_name, cut, options) => {
      const prompt = promptFor(local, cut);
      const [a, b] = [await remoteSession.generate(prompt, options), await localSession.generate(prompt, options)];
      expect(a).toEqual(b);
    });

    test('decisions and decision sequences match the local probabilities', async () => {
      const prompt = promptFor(local, 3);
      const s = local.info.special;
      for (const [first, second] of [[s.need!, s.done!], [s.keep!, s.drop!], [local.tokenize(' ')[0]!, local.tokenize('\n')[0]!]]) {
        const [a, b] = [await remoteSession.decide(prompt, first, second), await localSession.decide(prompt, first, second)];
        expect(a.probabilityFirst).toBeCloseTo(b.probabilityFirst, 5);
        expect(a.logitFirst - a.logitSecond).toBeCloseTo(b.logitFirst - b.logitSecond, 3);
      }
      const [a, b] = [await remoteSession.decideSequence(prompt, s.keep!, s.drop!, 4), await localSession.decideSequence(prompt, s.keep!, s.drop!, 4)];
      expect(a.map((d) => d.probabilityFirst)).toEqual(b.map((d) => expect.closeTo(d.probabilityFirst, 5)));
    });

    test('a repeated prompt is served from the slot cache', async () => {
      const prompt = promptFor(local, 4);
      await remoteSession.decide(prompt, 1, 2);
      await remoteSession.decide(prompt, 1, 2);
      expect(remoteSession.lastReusedTokens).toBe(prompt.length - 1);
      // Also for a generation closed early by a stop rule (the reuse comes with each token's timings).
      await remoteSession.generate(prompt, { maxTokens: 4, singleLine: true });
      expect(remoteSession.lastReusedTokens).toBe(prompt.length - 1);
    });

    test('log-likelihood is refused with the reason', async () => {
      await expect(remoteSession.logLikelihood(promptFor(local, 2), [1, 2])).rejects.toThrow(/labeler .* locally/);
    });

    test('an abort stops the generation and the server answers the next request', async () => {
      const controller = new AbortController();
      const prompt = promptFor(local, 4);
      const running = remoteSession.generate(prompt, { maxTokens: 2000, singleLine: false, loopPenalty: 0, repetitionStop: false }, controller.signal);
      setTimeout(() => controller.abort(), 50);
      const result = await running;
      expect(result.stoppedBy).toBe('aborted');
      expect(result.tokens.length).toBeLessThan(2000);
      const next = await remoteSession.generate(prompt, { maxTokens: 8, singleLine: false });
      expect(next).toEqual(await localSession.generate(prompt, { maxTokens: 8, singleLine: false }));
    });
  });

  test('a request past its deadline fails as a timeout, not a hang', async () => {
    const slow = await connect(server.url, { timeoutMs: 150 });
    const session = await slow.createSession();
    const started = performance.now();
    const error = await session.generate(promptFor(local, 4), { maxTokens: 3000, singleLine: false, loopPenalty: 0, repetitionStop: false })
      .then(() => undefined, (e: unknown) => e);
    expect(error).toBeInstanceOf(ModelServerError);
    expect((error as ModelServerError).failure).toBe('timeout');
    expect(performance.now() - started).toBeLessThan(5_000);
    await slow.dispose();
  });

  test('a server killed mid-request: the request fails at once, later ones too, and all work again after a restart', async () => {
    const victim = await LlamaServerProcess.start(binary!, { model: modelPath, slots: 1, contextPerSlot: 4096 });
    try {
      const model = await connect(victim.url);
      const session = await model.createSession();
      const prompt = promptFor(local, 4);
      const running = session.generate(prompt, { maxTokens: 3000, singleLine: false, loopPenalty: 0, repetitionStop: false });
      setTimeout(() => void victim.kill(), 100);
      const error = await running.then(() => undefined, (e: unknown) => e);
      expect(error).toBeInstanceOf(ModelServerError);
      expect((error as ModelServerError).failure).toBe('unreachable');
      const started = performance.now();
      await expect(session.decide(prompt, 1, 2)).rejects.toBeInstanceOf(ModelServerError);
      expect(performance.now() - started).toBeLessThan(1_000);
      await victim.restart();
      await new Promise((resolve) => setTimeout(resolve, RECHECK_MS + 100));
      const again = await session.generate(prompt, { maxTokens: 8, singleLine: false });
      expect(again).toEqual(await (await local.createSession()).generate(prompt, { maxTokens: 8, singleLine: false }));
      await model.dispose();
    } finally {
      await victim.stop();
    }
  });

  test('an API key: refused without it, with a hint; served with it', async () => {
    const guarded = await LlamaServerProcess.start(binary!, { model: modelPath, slots: 1, apiKey: 'team-secret' });
    try {
      const refused = await loadRemoteModel({ url: guarded.url, timeoutMs: 10_000 }, logger);
      expect(refused.kind).toBe('error');
      expect(refused.kind === 'error' && refused.message).toMatch(/401.*modelServerApiKey/);
      const model = await connect(guarded.url, { apiKey: 'team-secret' });
      expect(model.info.special.need).toBe(local.info.special.need);
      await model.dispose();
    } finally {
      await guarded.stop();
    }
  });

  describe('through the engine', () => {
    const engines: CompletionEngine[] = [];
    afterAll(async () => {
      await Promise.all(engines.map((e) => e.dispose()));
    });

    async function engineWith(settings: Parameters<typeof createCompletionEngine>[0]['settings']) {
      const notices: UserNotice[] = [];
      const engine = createCompletionEngine({ logger: createMemoryLogger(), settings: { threads: 1, maxTokens: 16, quickFirstAnswer: false, ...settings } });
      engines.push(engine);
      engine.onNotice((notice) => notices.push(notice));
      await engine.indexWorkspace([ROOT], () => {});
      engine.openDocument(CHECKOUT_URI, await readFile(CHECKOUT, 'utf8'), 1);
      return { engine, notices };
    }

    const complete = (engine: CompletionEngine) =>
      engine.complete({ uri: CHECKOUT_URI, line: 10, character: 11, trigger: 'invoked' }, new AbortController().signal);

    test.each(['none', 'full', 'reposhapley'] as const)('policy %s: the same completion and trace as the local model', async (policy) => {
      const viaServer = await engineWith({ modelServer: server.url, policy });
      const onHere = await engineWith({ modelPath, policy });
      const [a, b] = [await complete(viaServer.engine), await complete(onHere.engine)];
      expect(a.kind).toBe('ok');
      expect(b.kind).toBe('ok');
      if (a.kind !== 'ok' || b.kind !== 'ok') return;
      expect(a.text).toBe(b.text);
      const [ta, tb] = [viaServer.engine.trace(a.traceId)!, onHere.engine.trace(b.traceId)!];
      expect(ta.candidates.map((c) => [c.relPath, c.kept, c.keepProbability])).toEqual(
        tb.candidates.map((c) => [c.relPath, c.kept, c.keepProbability === undefined ? undefined : expect.closeTo(c.keepProbability, 5)]));
      expect(ta.tokens.prompt).toBe(tb.tokens.prompt);
      expect(ta.model?.label).toBe(`tiny.gguf at ${server.url}`);
    });

    test('a server that is down: empty at once, said once, and completions come back when it does', async () => {
      const flaky = await LlamaServerProcess.start(binary!, { model: modelPath, slots: 1, contextPerSlot: 4096 });
      try {
        const { engine, notices } = await engineWith({ modelServer: flaky.url, policy: 'full' });
        expect((await complete(engine)).kind).toBe('ok');
        await flaky.kill();
        for (let i = 0; i < 3; i++) {
          const started = performance.now();
          const outcome = await complete(engine);
          expect(outcome.kind).toBe('no-model');
          expect(performance.now() - started).toBeLessThan(1_000);
        }
        expect(notices.filter((n) => n.message.includes('not answering'))).toHaveLength(1);
        await flaky.restart();
        await new Promise((resolve) => setTimeout(resolve, RECHECK_MS + 100));
        expect((await complete(engine)).kind).toBe('ok');
      } finally {
        await flaky.stop();
      }
    });

    test('a server that is not there at start: no-model with the fix, then served once it starts', async () => {
      const later = await LlamaServerProcess.start(binary!, { model: modelPath, slots: 1, contextPerSlot: 4096 });
      await later.kill();
      try {
        const { engine } = await engineWith({ modelServer: later.url, policy: 'none' });
        const first = await complete(engine);
        expect(first).toMatchObject({ kind: 'no-model' });
        expect(first.kind === 'no-model' && first.message).toMatch(/not available.*reposhapley\.modelServer/);
        await later.restart();
        const deadline = Date.now() + 15_000;
        let outcome = await complete(engine);
        while (outcome.kind !== 'ok' && Date.now() < deadline) {
          await new Promise((resolve) => setTimeout(resolve, 250));
          outcome = await complete(engine);
        }
        expect(outcome.kind).toBe('ok');
      } finally {
        await later.stop();
      }
    });
  });
});

test('a modelServer that is not an http URL is refused with the fix, without a request', async () => {
  for (const url of ['gpu-box:8080', 'nonsense', 'file:///etc/passwd']) {
    const loaded = await loadRemoteModel({ url, timeoutMs: 1_000 }, createMemoryLogger());
    expect(loaded.kind).toBe('invalid');
    expect(loaded.kind === 'invalid' && loaded.message).toMatch(/reposhapley\.modelServer must be/);
  }
});
