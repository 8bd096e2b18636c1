/**
 * `quickFirstAnswer`: the completion that waited for the model to load reads a short prompt, the
 * full one is read in the background after it, and every later completion reads the full prompt
 * (the real engine, the real node-llama-cpp, the tiny model).
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { CompletionTrace } from '../shared/messages.js';
import { QUICK_FIRST_BUDGETS, type SettingsPatch } from '../shared/settings.js';
import { createCompletionEngine } from '../server/src/completion/createEngine.js';
import type { CompletionEngine } from '../server/src/completion/engine.js';
import { createMemoryLogger } from '../server/src/util/logger.js';
import { createTempWorkspace, type TempWorkspace } from './reliability/fixtureWorkspace.js';

/** A file whose text before the cursor is far longer than a quick answer's prefix budget. */
const LONG_PY = Array.from({ length: 60 }, (_, i) => `def helper_${i}(value):\n    return value + ${i}\n`).join('\n') + '\nresult = helper_';
const CURSOR = { line: LONG_PY.split('\n').length - 1, character: 'result = helper_'.length };

let workspace: TempWorkspace;
const engines: CompletionEngine[] = [];

beforeAll(async () => {
  workspace = await createTempWorkspace('reposhapley-quick-first-');
});
afterAll(async () => {
  await Promise.all(engines.map((engine) => engine.dispose()));
  workspace?.dispose();
});

async function engineOn(settings: SettingsPatch): Promise<{ engine: CompletionEngine; uri: string; log: string[] }> {
  const logger = createMemoryLogger();
  const engine = createCompletionEngine({
    logger,
    settings: { modelPath: workspace.modelPath, policy: 'none', threads: 1, maxTokens: 4, sharedModelHost: false, ...settings },
  });
  engines.push(engine);
  await engine.indexWorkspace([workspace.root], () => {});
  const uri = workspace.uri('long.py');
  engine.openDocument(workspace.uri('long.py'), LONG_PY, 1);
  return { engine, uri, log: logger.lines };
}

async function waitFor(what: string, condition: () => boolean): Promise<void> {
  const deadline = performance.now() + 20_000;
  while (!condition()) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function completeTrace(engine: CompletionEngine, uri: string, cursor = CURSOR): Promise<CompletionTrace> {
  const outcome = await engine.complete({ uri, ...cursor, trigger: 'invoked' }, new AbortController().signal);
  if (outcome.kind !== 'ok') throw new Error(`expected ok, got ${JSON.stringify(outcome)}`);
  return engine.trace(outcome.traceId)!;
}

test('the first completion, which waited for the load, reads the short prompt; the next one the full prompt', async () => {
  const { engine, uri, log } = await engineOn({});
  const first = await completeTrace(engine, uri);
  expect(first.quickFirstAnswer).toBe(true);
  expect(first.tokens.prefix).toBeLessThanOrEqual(QUICK_FIRST_BUDGETS.prefixTokens);
  // The full prompt is read in the background after the first answer, for the next request.
  await waitFor('the full prompt read after the first answer', () => log.some((line) => /^\[debug\] prefilled .*long\.py/.test(line)));
  engine.changeDocument(uri, [{ range: { start: CURSOR, end: CURSOR }, text: '1' }], 2);
  const next = await completeTrace(engine, uri, { ...CURSOR, character: CURSOR.character + 1 });
  expect(next.quickFirstAnswer).toBeUndefined();
  expect(next.tokens.prefix).toBeGreaterThan(QUICK_FIRST_BUDGETS.prefixTokens);
  expect(next.tokens.reused).toBeGreaterThan(QUICK_FIRST_BUDGETS.prefixTokens);
});

test('off: the first completion reads the full prompt too', async () => {
  const { engine, uri } = await engineOn({ quickFirstAnswer: false });
  const first = await completeTrace(engine, uri);
  expect(first.quickFirstAnswer).toBeUndefined();
  expect(first.tokens.prefix).toBeGreaterThan(QUICK_FIRST_BUDGETS.prefixTokens);
});
