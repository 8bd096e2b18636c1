/**
 * The model host adapter against the real node-llama-cpp: it answers as the in-process adapter
 * does (same ids, probabilities, completions, reuse counts and errors), and a llama.cpp abort,
 * at load or in the middle of an operation, ends the host and never this process.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { writeTinyModel, type TinyModel } from '../../../../test/support/tinyModel.js';
import { LLAMA_ABORTS, writeAbortingModel } from '../../../../test/support/llamaAborts.js';
import { ContextOverflowError, UntokenizedTextError, type CompletionModel, type LoadModelOptions } from '../completionModel.js';
import { loadLlamaModel } from '../llama/loadLlamaModel.js';
import { createMemoryLogger } from '../../util/logger.js';
import { ChildProcessCompletionModel, loadModelInChildProcess, ModelHostExitedError } from './childProcessModel.js';
import { crashCause } from './hostConnection.js';
import { HOST_FAULT_VARIABLE } from './hostProtocol.js';

const SOURCE = 'def load_config(path):\n    with open(path) as handle:\n        for line in handle:\n            ';

let dir: string;
let tiny: TinyModel;
let local: CompletionModel;
let hosted: ChildProcessCompletionModel;
const logger = createMemoryLogger();

/** A host of this test's own (sharing is tested in sharedHost.test.ts): it ends when its server leaves. */
function options(file: string): LoadModelOptions {
  return { path: file, threads: 1, gpuLayers: 0, host: { shared: false, idleSeconds: 0 } };
}

async function loadHosted(file: string): Promise<ChildProcessCompletionModel> {
  const result = await loadModelInChildProcess(options(file), logger);
  if (result.kind !== 'ok') throw new Error(result.message);
  return result.model as ChildProcessCompletionModel;
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'model-host-test-'));
  tiny = await writeTinyModel({ path: path.join(dir, 'tiny.gguf'), boostTokens: { 'Ċ': 3 } });
  const inProcess = await loadLlamaModel(options(tiny.path), logger);
  if (inProcess.kind !== 'ok') throw new Error(inProcess.message);
  local = inProcess.model;
  hosted = await loadHosted(tiny.path);
});

afterAll(async () => {
  await hosted?.dispose();
  await local?.dispose();
  await rm(dir, { recursive: true, force: true });
});

describe('the same answers as the in-process adapter', () => {
  test('model info and token ids: tokenized in the host, in batches, then answered here', async () => {
    expect(hosted.info).toEqual(local.info);
    expect(() => hosted.tokenize('never prepared\n')).toThrow(UntokenizedTextError);
    const texts = SOURCE.split(/(?<=\n)/);
    expect(await hosted.tokenizeMany(texts)).toEqual(texts.map((text) => local.tokenize(text)));
    expect(hosted.tokenize(texts[1]!)).toEqual(local.tokenize(texts[1]!));
    const ids = texts.flatMap((text) => local.tokenize(text));
    expect(hosted.detokenize(ids)).toBe(local.detokenize(ids));
    const special = [hosted.info.special.need!, ids[0]!];
    await hosted.tokenizeMany(['<NEED>']); // text, not the control token: its id is not sent
    expect(() => hosted.detokenize(special)).toThrow(/has not come from the model host/);
  });

  test('decisions, likelihoods, completions and reuse counts', async () => {
    const [here, there] = [await local.createSession(), await hosted.createSession()];
    const prompt = local.tokenize(SOURCE);
    const [a, b] = [prompt[3]!, prompt[5]!];
    for (const session of [here, there]) expect(session.lastReusedTokens).toBe(0);
    const decisions = await Promise.all([here, there].map((s) => s.decide(prompt, a, b)));
    expect(decisions[1]!.probabilityFirst).toBeCloseTo(decisions[0]!.probabilityFirst, 6);
    const sequences = await Promise.all([here, there].map((s) => s.decideSequence(prompt, a, b, 3)));
    sequences[1]!.forEach((d, i) => expect(d.probabilityFirst).toBeCloseTo(sequences[0]![i]!.probabilityFirst, 6));
    const likelihoods = await Promise.all([here, there].map((s) => s.logLikelihood(prompt.slice(0, 20), prompt.slice(20, 30))));
    expect(likelihoods[1]).toBeCloseTo(likelihoods[0]!, 4);
    const generations = await Promise.all([here, there].map((s) => s.generate(prompt, { maxTokens: 24, singleLine: false })));
    expect(generations[1]).toEqual(generations[0]);
    expect(there.lastReusedTokens).toBe(here.lastReusedTokens);
    expect(there.totalReusedTokens).toBe(here.totalReusedTokens);
    expect(there.totalReusedTokens).toBeGreaterThan(0);
    await Promise.all([here.dispose(), there.dispose()]);
  });

  test('a prompt larger than the context rejects with ContextOverflowError', async () => {
    const session = await hosted.createSession();
    const tooLong = new Array<number>(hosted.info.contextSize + 1).fill(local.tokenize('x')[0]!);
    const error = await session.decide(tooLong, 1, 2).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ContextOverflowError);
    expect(error).toMatchObject({ operation: 'decide', neededTokens: hosted.info.contextSize + 1, contextSize: hosted.info.contextSize });
    await session.dispose();
  });

  test('aborts: a decision rejects with the signal\'s reason, a generation answers "aborted"', async () => {
    const session = await hosted.createSession();
    const prompt = local.tokenize(SOURCE);
    const reason = new Error('typed on');
    const controller = new AbortController();
    controller.abort(reason);
    await expect(session.decide(prompt, 1, 2, controller.signal)).rejects.toBe(reason);
    const generation = await session.generate(prompt, { maxTokens: 200, singleLine: false }, controller.signal);
    expect(generation.stoppedBy).toBe('aborted');
    // Aborted mid-way: a prefix of the free run, and the session answers the next call.
    // Precondition: a run long enough to interrupt (the random model loops without the loop penalty).
    const loop = local.tokenize('    return');
    const free = { maxTokens: 300, singleLine: false, loopPenalty: 0 };
    const full = await session.generate(loop, free);
    expect(full.stoppedBy).toBe('max-tokens');
    const midway = new AbortController();
    setTimeout(() => midway.abort(reason), 2);
    const partial = await session.generate(loop, free, midway.signal);
    expect(partial.stoppedBy).toBe('aborted');
    expect(partial.tokens.length).toBeLessThan(300);
    expect(full.text.startsWith(partial.text)).toBe(true);
    expect((await session.generate(prompt, { maxTokens: 4, singleLine: false })).stoppedBy).not.toBe('aborted');
    await session.dispose();
  });
});

test('a host that dies while loading: the load error, and nothing left unhandled', async () => {
  process.env[HOST_FAULT_VARIABLE] = 'abort-at-load';
  const result = await loadModelInChildProcess({ ...options(tiny.path), hashPinned: true }, logger)
    .finally(() => delete process.env[HOST_FAULT_VARIABLE]);
  expect(result.kind).toBe('error');
  expect(result.kind === 'error' && result.message).toMatch(/llama\.cpp stopped while loading .*SIGABRT/);
});

describe('llama.cpp aborting the host', () => {
  test.each(LLAMA_ABORTS)('while loading (%s): a load error that quotes the assertion', async (name, changes, assertion) => {
    // Loaded in this process, the file would end it (see test/support/llamaAborts.ts).
    const file = await writeAbortingModel(tiny.path, path.join(dir, `${name.replace(/\W+/g, '-')}.gguf`), changes);
    const result = await loadModelInChildProcess(options(file), logger);
    expect(result.kind).toBe('error');
    const message = result.kind === 'error' ? result.message : '';
    expect(message).toMatch(assertion);
    expect(message).toContain('SIGABRT');
    expect(message).toContain(file);
  });

  test('in the middle of an operation: it rejects, the model says why, and nothing later hangs', async () => {
    process.env[HOST_FAULT_VARIABLE] = 'abort-at-generate';
    const doomed = await loadHosted(tiny.path).finally(() => delete process.env[HOST_FAULT_VARIABLE]);
    const session = await doomed.createSession();
    const [prompt] = await doomed.tokenizeMany([SOURCE]);
    expect(doomed.failure).toBeUndefined();
    await expect(session.generate(prompt, { maxTokens: 8, singleLine: false })).rejects.toBeInstanceOf(ModelHostExitedError);
    expect(doomed.failure).toMatch(/killed by SIGABRT/);
    await expect(session.decide(prompt, 1, 2)).rejects.toBeInstanceOf(ModelHostExitedError);
    await expect(doomed.createSession()).rejects.toBeInstanceOf(ModelHostExitedError);
    expect(doomed.tokenize(SOURCE)).toEqual(prompt); // what was tokenized before still answers
    await doomed.dispose();
  });

  test('a host that does not answer a cancelled request is stopped, and counts as failed', async () => {
    process.env[HOST_FAULT_VARIABLE] = 'hang-at-generate';
    const loaded = await loadModelInChildProcess(options(tiny.path), logger, { abortGraceMs: 300 })
      .finally(() => delete process.env[HOST_FAULT_VARIABLE]);
    if (loaded.kind !== 'ok') throw new Error(loaded.message);
    const stuck = loaded.model as ChildProcessCompletionModel;
    const session = await stuck.createSession();
    const controller = new AbortController();
    const running = session.generate(local.tokenize(SOURCE), { maxTokens: 8, singleLine: false }, controller.signal);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(stuck.failure).toBeUndefined(); // a slow answer is not a failure until it is cancelled
    controller.abort();
    await expect(running).rejects.toBeInstanceOf(ModelHostExitedError);
    expect(stuck.failure).toMatch(/stopped answering \(no reply 0\.3 s after a cancel\)/);
    expect(() => process.kill(stuck.hostPid!, 0)).toThrow(/ESRCH/);
    await stuck.dispose();
  });

  test('dispose ends the host process', async () => {
    const model = await loadHosted(tiny.path);
    const pid = model.hostPid!;
    expect(() => process.kill(pid, 0)).not.toThrow();
    await model.dispose();
    expect(() => process.kill(pid, 0)).toThrow(/ESRCH/);
    expect(model.failure).toBeUndefined(); // asked to exit: not a failure
  });
});

test.each([
  [['x', '/home/runner/work/node-llama-cpp/llama/llama.cpp/src/llama-model.cpp:1260: GGML_ASSERT(a <= b) failed'], 'llama.cpp llama-model.cpp:1260: GGML_ASSERT(a <= b) failed'],
  [["terminate called after throwing an instance of 'std::out_of_range'", '  what():  vector::_M_range_check'], 'what():  vector::_M_range_check'],
  [['some other line'], undefined],
])('crashCause(%j) names the assertion', (lines, expected) => {
  expect(crashCause(lines)).toBe(expected);
});
