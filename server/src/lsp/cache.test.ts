import { describe, expect, test } from 'vitest';
import type { Connection } from 'vscode-languageserver/node';
import { DEFAULT_SETTINGS } from '../../../shared/settings.js';
import { FakeEngine } from '../../../test/lsp/fakeEngine.js';
import { silentLogger } from '../util/logger.js';
import { CompletionCache, completionCacheKey, type CacheKeyInput } from './cache.js';
import { completeAtCursor } from './completeAtCursor.js';
import type { CancellationLike } from './converters.js';
import { createServerState } from './state.js';

const base: CacheKeyInput = { uri: 'file:///w/a.py', prefix: 'def f(', suffix: ')\n', indexVersion: 3, settings: DEFAULT_SETTINGS };

describe('completionCacheKey', () => {
  test('is stable for equal inputs, including settings with keys in another order', () => {
    const reordered = Object.fromEntries(Object.entries(DEFAULT_SETTINGS).reverse()) as typeof DEFAULT_SETTINGS;
    expect(completionCacheKey({ ...base })).toBe(completionCacheKey({ ...base, settings: reordered }));
  });

  test.each<[string, Partial<CacheKeyInput>]>([
    ['uri', { uri: 'file:///w/b.py' }],
    ['prefix', { prefix: 'def g(' }],
    ['suffix', { suffix: ')\n\n' }],
    ['index version', { indexVersion: 4 }],
    ['settings', { settings: { ...DEFAULT_SETTINGS, policy: 'full' } }],
    ['nested settings', { settings: { ...DEFAULT_SETTINGS, budgets: { ...DEFAULT_SETTINGS.budgets, chunkTokens: 1 } } }],
    ['prefix/suffix boundary', { prefix: 'def f()', suffix: '\n' }],
  ])('changes with the %s', (_name, change) => {
    expect(completionCacheKey({ ...base, ...change })).not.toBe(completionCacheKey(base));
  });
});

describe('CompletionCache', () => {
  test('evicts the least recently used entry', () => {
    const cache = new CompletionCache(2);
    cache.set('a', { text: 'A', traceId: '1' });
    cache.set('b', { text: 'B', traceId: '2' });
    cache.get('a');
    cache.set('c', { text: 'C', traceId: '3' });
    expect(cache.get('a')?.text).toBe('A');
    expect(cache.get('b')).toBeUndefined();
    expect(cache.size).toBe(2);
  });
});

const noCancel: CancellationLike = { isCancellationRequested: false, onCancellationRequested: () => ({ dispose() {} }) };

function sessionWithEngine(options: { noModel?: boolean } = {}) {
  const connection = { sendNotification: async () => {} } as unknown as Connection;
  const state = createServerState(connection, () => engine, silentLogger);
  const engine = new FakeEngine({ settings: { debounceMs: 0 }, ...options });
  state.engine = engine;
  const uri = 'file:///w/a.py';
  engine.openDocument(uri, 'import os\nos.\n', 1);
  const ask = () => completeAtCursor(state, { uri, position: { line: 1, character: 3 }, trigger: 'invoked' }, noCancel);
  return { state, engine, uri, ask };
}

describe('completion cache in front of the engine', () => {
  test('a repeated request at the same text is answered from the cache', async () => {
    const { engine, ask } = sessionWithEngine();
    const first = await ask();
    const second = await ask();
    expect(second).toEqual(first);
    expect(engine.completeCalls).toHaveLength(1);
  });

  test('a new index version misses', async () => {
    const { engine, ask } = sessionWithEngine();
    await ask();
    engine.indexVersion++;
    await ask();
    expect(engine.completeCalls).toHaveLength(2);
  });

  test('a text change near the cursor misses', async () => {
    const { state, engine, uri, ask } = sessionWithEngine();
    await ask();
    engine.changeDocument(uri, [{ range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, text: '# hi\n' }], 2);
    await ask();
    expect(engine.completeCalls).toHaveLength(2);
  });

  test('a settings change misses', async () => {
    const { engine, ask } = sessionWithEngine();
    await ask();
    await engine.updateSettings({ policy: 'none' });
    await ask();
    expect(engine.completeCalls).toHaveLength(2);
  });

  test('non-ok outcomes are not cached', async () => {
    const { engine, ask } = sessionWithEngine({ noModel: true });
    expect(await ask()).toBeUndefined();
    expect(await ask()).toBeUndefined();
    expect(engine.completeCalls).toHaveLength(2);
  });

  test('a closed document never reaches the engine: the LSP layer reads the engine\'s own store', async () => {
    const { engine, uri, ask } = sessionWithEngine();
    engine.closeDocument(uri);
    expect(await ask()).toBeUndefined();
    expect(engine.completeCalls).toHaveLength(0);
  });

  test('unopened documents and positions past the end never reach the engine', async () => {
    const { state, engine, uri } = sessionWithEngine();
    const at = (u: string, line: number, character: number) =>
      completeAtCursor(state, { uri: u, position: { line, character }, trigger: 'invoked' }, noCancel);
    expect(await at('file:///w/other.py', 0, 0)).toBeUndefined();
    expect(await at(uri, 5, 0)).toBeUndefined();
    expect(await at(uri, 0, 10)).toBeUndefined();
    expect(engine.completeCalls).toHaveLength(0);
  });
});
