/**
 * The engine end to end with the real node-llama-cpp on tiny generated GGUFs: each policy,
 * prefix reuse within and across requests, auto fallback, cancellation and bad inputs.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import type { CompletionTrace } from '../shared/messages.js';
import type { SettingsPatch } from '../shared/settings.js';
import { createCompletionEngine } from '../server/src/completion/createEngine.js';
import type { CompletionEngine, UserNotice } from '../server/src/completion/engine.js';
import { createMemoryLogger } from '../server/src/util/logger.js';
import { WorkspaceIndex } from '../server/src/indexing/workspaceIndex.js';
import { writeTinyModel } from './support/tinyModel.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), 'fixtures/retrieval-ws');
const CHECKOUT = path.join(ROOT, 'app/checkout.py');
const CHECKOUT_URI = pathToFileURL(CHECKOUT).href;
/** `    return cart.total()`: the cursor after `return `. */
const CURSOR = { line: 10, character: 11 };

let controlModel: string;
let plainModel: string;
/** Qwen2.5-Coder's vocabulary shape: FIM and repository markers, no control tokens (the repo-fim layout). */
let repoModel: string;
const engines: CompletionEngine[] = [];

beforeAll(async () => {
  const dir = path.join(os.tmpdir(), `reposhapley-engine-test-${process.pid}`);
  mkdirSync(dir, { recursive: true });
  controlModel = (await writeTinyModel({ path: path.join(dir, 'control.gguf'), contextLength: 4096 })).path;
  plainModel = (await writeTinyModel({ path: path.join(dir, 'plain.gguf'), contextLength: 4096, controlTokens: false, fimLayout: 'starcoder' })).path;
  repoModel = (await writeTinyModel({ path: path.join(dir, 'repo.gguf'), contextLength: 4096, controlTokens: false, repositoryMarkers: true })).path;
});

afterAll(async () => {
  await Promise.all(engines.map((engine) => engine.dispose()));
});

/** The tests here compare whole prompts: the first answer's short one has its own test (quickFirstAnswer.test.ts). */
async function engineWith(settings: SettingsPatch): Promise<{ engine: CompletionEngine; logger: ReturnType<typeof createMemoryLogger>; notices: UserNotice[] }> {
  const logger = createMemoryLogger();
  const engine = await createCompletionEngine({ logger, settings: { threads: 1, maxTokens: 8, quickFirstAnswer: false, ...settings } });
  engines.push(engine);
  const notices: UserNotice[] = [];
  engine.onNotice((notice) => notices.push(notice));
  await engine.indexWorkspace([ROOT], () => {});
  engine.openDocument(CHECKOUT_URI, readFileSync(CHECKOUT, 'utf8'), 1);
  return { engine, logger, notices };
}

async function completeTrace(engine: CompletionEngine, position = CURSOR): Promise<CompletionTrace> {
  const outcome = await engine.complete({ uri: CHECKOUT_URI, ...position, trigger: 'invoked' }, new AbortController().signal);
  if (outcome.kind !== 'ok') throw new Error(`expected ok, got ${JSON.stringify(outcome)}`);
  return engine.trace(outcome.traceId)!;
}

describe('policies through the engine', () => {
  test('none: no retrieval, the no-retrieval format', async () => {
    const { engine } = await engineWith({ modelPath: controlModel, policy: 'none' });
    const trace = await completeTrace(engine);
    expect(trace).toMatchObject({ effectivePolicy: 'none', decision: 'done', candidates: [], outcome: 'ok' });
    expect(trace.tokens.chunks).toBe(0);
    expect(trace.tokens.prompt).toBe(trace.tokens.prefix + trace.tokens.suffix + 4);
    expect(trace.tokens.evaluated).toMatchObject({ trigger: 0, selection: 0, prompt: trace.tokens.prompt - trace.tokens.reused });
  });

  test('full: every packed candidate is kept', async () => {
    const { engine } = await engineWith({ modelPath: controlModel, policy: 'full', tracePrompt: true });
    const trace = await completeTrace(engine);
    expect(trace.prompt).toMatch(/^<PFX>"""Checkout flow[\s\S]*<NEED><C_1># [\s\S]*<\/C_1>[\s\S]*<DONE><MID>$/);
    expect(trace.effectivePolicy).toBe('full');
    expect(trace.candidates.length).toBeGreaterThan(0);
    expect(trace.candidates.some((c) => c.kept)).toBe(true);
    expect(trace.tokens.chunks).toBeGreaterThan(0);
    expect(trace.candidates.find((c) => c.relPath === 'shop/cart.py')).toBeDefined();
  });

  test('reposhapley with t_c = 0 always retrieves and asks KEEP/DROP per packed candidate', async () => {
    const { engine } = await engineWith({ modelPath: controlModel, policy: 'reposhapley', needThreshold: 0 });
    const trace = await completeTrace(engine);
    expect(trace.decision).toBe('need');
    expect(trace.needProbability).toBeGreaterThan(0);
    expect(trace.needProbability).toBeLessThan(1);
    const asked = trace.candidates.filter((c) => c.keepProbability !== undefined);
    expect(asked.length).toBeGreaterThan(0);
    for (const candidate of asked) expect(candidate.kept).toBe(candidate.keepProbability! >= 0.5);
    // What it cost, stage by stage: the first completion of a session reads everything once.
    const evaluated = trace.tokens.evaluated!;
    expect(evaluated.trigger).toBeGreaterThan(0);
    expect(evaluated.selection).toBeGreaterThan(0);
    expect(evaluated.prompt + evaluated.reused).toBeGreaterThanOrEqual(trace.tokens.prompt);
    expect(evaluated.generated).toBe(trace.tokens.generated);
    expect(trace.timings.waitMs).toBeGreaterThanOrEqual(0);
  });

  test('reposhapley with t_c = 1 answers DONE without retrieving', async () => {
    const { engine } = await engineWith({ modelPath: controlModel, policy: 'reposhapley', needThreshold: 1 });
    const trace = await completeTrace(engine);
    expect(trace.decision).toBe('done');
    expect(trace.candidates).toEqual([]);
    expect(trace.timings.retrievalMs).toBe(0);
  });

  test('without a t_c setting the model\'s recorded t_c applies; a user setting overrides it', async () => {
    const recorded = (await writeTinyModel({ path: path.join(path.dirname(controlModel), 'tuned.gguf'), contextLength: 4096, needThreshold: 1 })).path;
    const byModel = await completeTrace((await engineWith({ modelPath: recorded, policy: 'reposhapley' })).engine);
    expect(byModel.decision).toBe('done');
    const byUser = await completeTrace((await engineWith({ modelPath: recorded, policy: 'reposhapley', needThreshold: 0 })).engine);
    expect(byUser.decision).toBe('need');
  });

  test('a model recording a cursor echo gets the cursor line repeated after <MID>', async () => {
    const echoing = (await writeTinyModel({ path: path.join(path.dirname(controlModel), 'echo.gguf'), contextLength: 4096, echoLines: 1 })).path;
    const trace = await completeTrace((await engineWith({ modelPath: echoing, policy: 'none', tracePrompt: true })).engine);
    const cursorLine = readFileSync(CHECKOUT, 'utf8').split('\n')[CURSOR.line]!.slice(0, CURSOR.character);
    expect(trace.prompt!.endsWith(`<DONE><MID>${cursorLine}`)).toBe(true);
    const plain = await completeTrace((await engineWith({ modelPath: controlModel, policy: 'none', tracePrompt: true })).engine);
    expect(plain.prompt!.endsWith('<DONE><MID>')).toBe(true);
  });

  test('auto on a model without control tokens runs full on the plain FIM layout, logged once', async () => {
    const { engine, logger } = await engineWith({ modelPath: plainModel, policy: 'auto' });
    expect((await completeTrace(engine)).effectivePolicy).toBe('full');
    expect((await completeTrace(engine)).effectivePolicy).toBe('full');
    expect(logger.lines.filter((l) => l.includes('no RepoShapley control tokens'))).toHaveLength(1);
  });
});

describe('prefix reuse', () => {
  test('a repeated request reuses the whole prompt; an edit on the cursor line keeps the lines above', async () => {
    const { engine } = await engineWith({ modelPath: controlModel, policy: 'none' });
    const first = await completeTrace(engine);
    const again = await completeTrace(engine);
    expect(again.tokens.reused).toBeGreaterThanOrEqual(again.tokens.prompt - 1);
    engine.changeDocument(CHECKOUT_URI, [{ range: { start: CURSOR, end: CURSOR }, text: 'c' }], 2);
    const typed = await completeTrace(engine, { line: CURSOR.line, character: CURSOR.character + 1 });
    expect(typed.tokens.reused).toBeGreaterThan(first.tokens.prefix / 2);
    expect(typed.tokens.reused).toBeLessThan(typed.tokens.prompt);
  });

  test('within one reposhapley request the in-file part evaluated for NEED is reused by generation', async () => {
    const { engine } = await engineWith({ modelPath: controlModel, policy: 'reposhapley', needThreshold: 0 });
    const trace = await completeTrace(engine);
    expect(trace.tokens.reused).toBeGreaterThanOrEqual(trace.tokens.prefix + trace.tokens.suffix + 2);
  });
});

describe('outcomes that are not completions', () => {
  test('an aborted request is cancelled', async () => {
    const { engine } = await engineWith({ modelPath: controlModel, policy: 'full' });
    const outcome = await engine.complete({ uri: CHECKOUT_URI, ...CURSOR, trigger: 'invoked' }, AbortSignal.abort());
    expect(outcome.kind).toBe('cancelled');
  });

  test('a document that was never opened', async () => {
    const { engine } = await engineWith({ modelPath: controlModel });
    const outcome = await engine.complete({ uri: 'file:///nowhere.py', line: 0, character: 0, trigger: 'invoked' }, new AbortController().signal);
    expect(outcome.kind).toBe('unknown-document');
  });

  test.each([
    ['missing', '/definitely/not/here.gguf', /not found/i],
    ['not a GGUF', path.join(ROOT, 'shop/cart.py'), /GGUF/],
  ])('a %s model: no-model outcome, one notice with the fix, the engine keeps serving', async (_name, modelPath, pattern) => {
    const { engine, notices } = await engineWith({ modelPath });
    for (let i = 0; i < 2; i++) {
      const outcome = await engine.complete({ uri: CHECKOUT_URI, ...CURSOR, trigger: 'invoked' }, new AbortController().signal);
      expect(outcome.kind).toBe('no-model');
    }
    expect(notices).toHaveLength(1);
    expect(notices[0]!.message).toMatch(pattern);
    expect(notices[0]!.message).toMatch(/modelPath/);
    await engine.updateSettings({ modelPath: controlModel, policy: 'none' });
    expect((await completeTrace(engine)).outcome).toBe('ok');
  });
});

describe('the one lock and the one document store', () => {
  test('completions asked at once run one after another in order; one aborted while it waits never runs', async () => {
    const { engine } = await engineWith({ modelPath: controlModel, policy: 'full' });
    await completeTrace(engine); // the model is loaded
    const finished: string[] = [];
    const ask = (name: string, line: number, signal: AbortSignal) =>
      engine.complete({ uri: CHECKOUT_URI, line, character: 0, trigger: 'invoked' }, signal).then((outcome) => {
        finished.push(name);
        return outcome;
      });
    const waiting = new AbortController();
    const asked = [ask('a', 3, new AbortController().signal), ask('b', 5, waiting.signal), ask('c', 7, new AbortController().signal)];
    waiting.abort();
    const [a, b, c] = await Promise.all(asked);
    expect(b!.kind).toBe('cancelled');
    expect([a!.kind, c!.kind]).toEqual(['ok', 'ok']);
    expect(finished).toEqual(['b', 'a', 'c']); // b left the queue at once; a and c kept their order
    // The latest trace is c's: b made none.
    expect(engine.trace()?.traceId).toBe(c!.kind === 'ok' ? c!.traceId : undefined);
    expect(engine.trace()?.line).toBe(7);
  });

  test('an edit lands once in the store, and the index takes it from there', async () => {
    const { engine } = await engineWith({ modelPath: controlModel, policy: 'none' });
    expect(engine.changeDocument(CHECKOUT_URI, [{ range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, text: 'ADDED = 1\n' }], 2)).toBe(true);
    expect(engine.changeDocument('file:///never-opened.py', [{ text: 'x' }], 2)).toBe(false);
    expect(engine.documents.version(CHECKOUT_URI)).toBe(2);
    expect(engine.documents.textAround(CHECKOUT_URI, { line: 1, character: 0 }, 100, 0)?.prefix).toBe('ADDED = 1\n');
    // Another open document's edit is indexed before a completion retrieves (a new index version).
    const report = path.join(ROOT, 'app/report.py');
    const reportUri = pathToFileURL(report).href;
    engine.openDocument(reportUri, readFileSync(report, 'utf8'), 1);
    const before = engine.indexVersion;
    engine.changeDocument(reportUri, [{ range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, text: 'def typed_in_report():\n    return 2\n' }], 2);
    const trace = await completeTrace(engine, { line: CURSOR.line + 1, character: CURSOR.character });
    expect(trace.indexVersion).toBeGreaterThan(before);
  });
});

describe('a document closed just before a completion', () => {
  test('the completion retrieves from its disk content, however slow the close is', async () => {
    const { engine } = await engineWith({ modelPath: controlModel, policy: 'full' });
    await completeTrace(engine); // the model is loaded: the next completion reaches retrieval at once
    const report = path.join(ROOT, 'app/report.py');
    const reportUri = pathToFileURL(report).href;
    engine.openDocument(reportUri, `${readFileSync(report, 'utf8')}\ndef edited_in_the_buffer():\n    return 1\n`, 1);
    const before = engine.indexVersion;
    // A slow disk: the close restores the file's entry a second later.
    const restore = WorkspaceIndex.prototype.upsertFromDisk;
    const spy = vi.spyOn(WorkspaceIndex.prototype, 'upsertFromDisk').mockImplementation(async function (this: WorkspaceIndex, file: string) {
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      return restore.call(this, file);
    });
    try {
      engine.closeDocument(reportUri);
      const trace = await completeTrace(engine);
      // The restored entry is a new index version; the completion saw it.
      expect(trace.indexVersion).toBeGreaterThan(before);
      expect(trace.indexVersion).toBe(engine.indexVersion);
    } finally {
      spy.mockRestore();
    }
  });
});

describe('background prefill (reposhapley/cursor)', () => {
  const at = { uri: CHECKOUT_URI, ...CURSOR };

  test('a prefill leaves the prompt cached: the completion there re-reads one token and says the same', async () => {
    const { engine: plain } = await engineWith({ modelPath: controlModel, policy: 'full' });
    const cold = await completeTrace(plain);
    expect(cold.tokens.reused).toBe(0);
    const { engine } = await engineWith({ modelPath: controlModel, policy: 'full' });
    await engine.prefill(at);
    const warm = await completeTrace(engine);
    expect(warm.tokens.prompt).toBe(cold.tokens.prompt);
    expect(warm.tokens.reused).toBe(warm.tokens.prompt - 1);
    expect(warm.completion).toBe(cold.completion);
    expect(engine.trace()?.traceId).toBe(warm.traceId); // the prefill left no trace of its own
  });

  test('with backgroundPrefill off it does nothing', async () => {
    const { engine } = await engineWith({ modelPath: controlModel, policy: 'full', backgroundPrefill: false });
    await engine.prefill(at);
    expect((await completeTrace(engine)).tokens.reused).toBe(0);
  });

  test('a completion request stops a running prefill and answers as without it', async () => {
    // Both engines complete at line 2 first (the model loaded and busy elsewhere): what a line
    // retrieves can serve a nearby one (keepCandidatesNearLines), so the histories must match.
    const { engine: plain } = await engineWith({ modelPath: controlModel, policy: 'full' });
    await completeTrace(plain, { line: 2, character: 0 });
    const expected = (await completeTrace(plain)).completion;
    const { engine, logger } = await engineWith({ modelPath: controlModel, policy: 'full' });
    await completeTrace(engine, { line: 2, character: 0 });
    const prefilling = engine.prefill(at);
    const answer = await completeTrace(engine);
    await prefilling;
    expect(answer.completion).toBe(expected);
    expect(logger.lines.some((line) => /prefill/.test(line) && /failed/.test(line))).toBe(false);
  });

  test('a document that is not open is not prefilled, and nothing throws', async () => {
    const { engine } = await engineWith({ modelPath: controlModel, policy: 'full' });
    await expect(engine.prefill({ uri: 'file:///not-open.py', line: 0, character: 0 })).resolves.toBeUndefined();
  });
});

describe('candidates kept while typing on a line (keepCandidatesWhileTyping)', () => {
  const TYPED = 'inventory.restock(';
  const afterTyped = { line: CURSOR.line, character: CURSOR.character + TYPED.length };
  const candidatesOf = (trace: CompletionTrace) => trace.candidates.map((c) => `${c.relPath}:${c.startLine}`);

  /** Types TYPED at the cursor, then removes it and the space before it, then types both again. */
  async function typeEraseRetype(settings: SettingsPatch): Promise<{ typed: string[]; erased: string[]; retyped: string[] }> {
    const { engine } = await engineWith({ modelPath: controlModel, policy: 'full', ...settings });
    const edit = (start: number, end: number, text: string, version: number) => engine.changeDocument(
      CHECKOUT_URI, [{ range: { start: { line: CURSOR.line, character: start }, end: { line: CURSOR.line, character: end } }, text }], version);
    edit(CURSOR.character, CURSOR.character, TYPED, 2);
    const typed = candidatesOf(await completeTrace(engine, afterTyped));
    edit(CURSOR.character - 1, afterTyped.character, '', 3);
    const erased = candidatesOf(await completeTrace(engine, { line: CURSOR.line, character: CURSOR.character - 1 }));
    edit(CURSOR.character - 1, CURSOR.character - 1, ` ${TYPED}`, 4);
    const retyped = candidatesOf(await completeTrace(engine, afterTyped));
    return { typed, erased, retyped };
  }

  test('typing on keeps the candidates retrieved where the line was entered; backspacing past that point retrieves anew', async () => {
    const fresh = await typeEraseRetype({ keepCandidatesWhileTyping: false });
    // The fixture is one where the typed call changes what retrieval finds.
    expect(fresh.typed).not.toEqual(fresh.erased);
    expect(fresh.retyped).toEqual(fresh.typed);
    const kept = await typeEraseRetype({});
    expect(kept.typed).toEqual(fresh.typed);
    expect(kept.erased).toEqual(fresh.erased);
    expect(kept.retyped).toEqual(fresh.erased);
  });

  test('in the repository layout, kept candidates keep the chunks and the lines above the cursor cached', async () => {
    const reuseAfterTyping = async (settings: SettingsPatch) => {
      const { engine } = await engineWith({ modelPath: repoModel, policy: 'full', ...settings });
      const first = await completeTrace(engine);
      engine.changeDocument(CHECKOUT_URI, [{ range: { start: CURSOR, end: CURSOR }, text: TYPED }], 2);
      return { first, typed: await completeTrace(engine, afterTyped) };
    };
    const kept = await reuseAfterTyping({});
    expect(kept.first.model?.layout).toBe('repo-fim');
    expect(kept.typed.tokens.reused).toBeGreaterThan(kept.typed.tokens.chunks);
    const fresh = await reuseAfterTyping({ keepCandidatesWhileTyping: false });
    expect(fresh.typed.tokens.reused).toBeLessThan(kept.typed.tokens.reused);
  });
});

describe('documents in other languages', () => {
  const POLYGLOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), 'fixtures/polyglot');
  const MAIN_GO = path.join(POLYGLOT, 'goapp/cmd/main.go');
  const MAIN_GO_URI = pathToFileURL(MAIN_GO).href;
  const MAIN_GO_TEXT = readFileSync(MAIN_GO, 'utf8');
  /** `	s := store.Open(8)`: the cursor after `store.`. */
  const AFTER_STORE = { line: 9, character: '\ts := store.'.length };

  async function goEngine(settings: SettingsPatch): Promise<CompletionEngine> {
    const engine = await createCompletionEngine({ logger: createMemoryLogger(), settings: { threads: 1, maxTokens: 8, modelPath: controlModel, quickFirstAnswer: false, ...settings } });
    engines.push(engine);
    await engine.indexWorkspace([POLYGLOT], () => {});
    return engine;
  }

  test('a Go file: retrieval brings the imported package, and auto runs full (the control was trained on Python)', async () => {
    const engine = await goEngine({ policy: 'auto', needThreshold: 0 });
    engine.openDocument(MAIN_GO_URI, MAIN_GO_TEXT, 1, 'go');
    const outcome = await engine.complete({ uri: MAIN_GO_URI, ...AFTER_STORE, trigger: 'invoked' }, new AbortController().signal);
    expect(outcome.kind).toBe('ok');
    const trace = engine.trace(outcome.kind === 'ok' ? outcome.traceId : undefined)!;
    expect(trace.language).toBe('go');
    expect(trace.effectivePolicy).toBe('full');
    expect(trace.candidates.some((c) => c.relPath === 'goapp/store/store.go' && c.kept)).toBe(true);
  });

  test('an untitled buffer takes its language from the editor; a language turned off answers nothing and says why', async () => {
    const engine = await goEngine({ policy: 'full', languages: { rust: false } });
    engine.openDocument('untitled:Untitled-1', MAIN_GO_TEXT, 1, 'go');
    const untitled = await engine.complete({ uri: 'untitled:Untitled-1', ...AFTER_STORE, trigger: 'invoked' }, new AbortController().signal);
    expect(untitled.kind === 'ok' && engine.trace(untitled.traceId)?.language).toBe('go');
    const mainRs = pathToFileURL(path.join(POLYGLOT, 'rustapp/src/main.rs')).href;
    engine.openDocument(mainRs, readFileSync(new URL(mainRs), 'utf8'), 1, 'rust');
    const off = await engine.complete({ uri: mainRs, line: 5, character: 4, trigger: 'invoked' }, new AbortController().signal);
    expect(off).toEqual({ kind: 'disabled', message: 'completions in rust files are off (setting languages.rust)' });
  });
});
