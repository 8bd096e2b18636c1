/**
 * Well-framed JSON-RPC messages with random parameters: every method the server handles (and
 * some it does not), as requests and as notifications, with parameters that are well-formed,
 * mutated from well-formed, or any JSON at all. Settings cases include hostile model paths
 * (a URL, /dev/stdin, a directory, /etc/passwd) and extreme but valid values.
 */
import { pathToFileURL } from 'node:url';
import type { Random } from '../random.js';
import { framed, request, type CaseGenerator, type FuzzCase, type FuzzContext } from './fuzzCase.js';
import { mutate, oddNumber, oddString, randomJson } from './jsonValues.js';

/** URIs beyond the document pool: outside the roots, `..`, other schemes, broken encodings. */
function strayUri(context: FuzzContext): string {
  const { random, workspace } = context;
  return random.pick([
    pathToFileURL(`${workspace}/../outside.py`).href.replace('/outside.py', '/../outside.py'),
    `file://${workspace}/../../etc/passwd`,
    `file://${workspace}/%2e%2e/%2e%2e/etc/passwd`,
    'file:///etc/passwd',
    'file:///dev/stdin',
    'file:///proc/self/fd/0',
    `file://${workspace}`,
    `file://${workspace}/sub%2Fdir.py`,
    `file://${workspace}/bad%ZZ.py`,
    `file://${workspace}/nul%00.py`,
    'file://remote-host/share/x.py',
    'untitled:Untitled-1',
    'vscode-notebook-cell:/x.ipynb#W0sZmlsZQ%3D%3D',
    'http://example.invalid/x.py',
    '',
    `file://${workspace}/${'d/'.repeat(500)}x.py`,
  ]);
}

/** A document URI: mostly from the pool, sometimes a stray one. */
export function someUri(context: FuzzContext): string {
  return context.random.chance(0.8) ? context.random.pick(context.documentUris) : strayUri(context);
}

function position(random: Random, lines = 50): { line: number; character: number } {
  return random.chance(0.7)
    ? { line: random.int(lines + 2), character: random.int(120) }
    : { line: oddNumber(random), character: oddNumber(random) };
}

/** Settings as editors send them, with hostile and extreme values mixed in. */
function settings(context: FuzzContext): unknown {
  const { random } = context;
  const values: Record<string, () => unknown> = {
    modelPath: () => random.pick([context.modelPath, '', '/nonexistent/model.gguf', 'http://127.0.0.1:9/model.gguf', 'https://example.invalid/m.gguf',
      '/dev/stdin', '/dev/zero', '/etc/passwd', context.workspace, 'hf:user/model', oddString(random)]),
    policy: () => random.pick(['none', 'full', 'reposhapley', 'auto', 'bogus', 3]),
    topK: () => random.pick([0, 1, 10, 11, -1, 1e9, 2.5]),
    needThreshold: () => random.pick([0, 0.5, 1, -1, 2]),
    threads: () => random.pick([1, 1, 0.5, -1, 1e6, 300]),
    gpuLayers: () => random.pick(['auto', 0, 1e9, -3]),
    debounceMs: () => random.pick([0, 10, 75, 5_000, 1e12, -5]),
    maxTokens: () => random.pick([1, 4, 8, 0, 1e9]),
    windowLines: () => random.pick([0, 1, 5, 20, 1e6]),
    windowStride: () => random.pick([0, 1, 3, 10, 1e6]),
    enabled: () => random.pick([true, true, false, 'yes']),
    tracePrompt: () => random.pick([true, false]),
    budgets: () => random.chance(0.5) ? { prefixTokens: random.pick([16, 64, 1e9, 0]), suffixTokens: random.pick([0, 32, 1e9]), chunkTokens: random.pick([0, 64, 1e9]) } : randomJson(random, 2),
  };
  const patch: Record<string, unknown> = {};
  for (const key of Object.keys(values)) if (random.chance(0.25)) patch[key] = values[key]!();
  return random.chance(0.5) ? { reposhapley: patch } : patch;
}

/** Well-formed parameters of each method. */
const TEMPLATES: Record<string, (context: FuzzContext) => unknown> = {
  'textDocument/inlineCompletion': (c) => ({ textDocument: { uri: someUri(c) }, position: position(c.random), context: { triggerKind: c.random.pick([1, 2]) }, reposhapley: c.random.chance(0.2) ? { mode: c.random.pick(['line', 'block', 'x']) } : undefined }),
  'textDocument/completion': (c) => ({ textDocument: { uri: someUri(c) }, position: position(c.random), context: { triggerKind: c.random.pick([1, 2, 3]), triggerCharacter: '.' } }),
  'reposhapley/completionTrace': (c) => (c.random.chance(0.5) ? {} : { traceId: oddString(c.random) }),
  'textDocument/didOpen': (c) => ({ textDocument: { uri: someUri(c), languageId: c.random.pick(['python', 'plaintext', '']), version: oddNumber(c.random), text: c.random.text(c.random.int(400)) } }),
  'textDocument/didClose': (c) => ({ textDocument: { uri: someUri(c) } }),
  'textDocument/didSave': (c) => ({ textDocument: { uri: someUri(c) }, text: c.random.text(20) }),
  'workspace/didChangeWatchedFiles': (c) => ({ changes: Array.from({ length: c.random.int(4) }, () => ({ uri: someUri(c), type: c.random.pick([1, 2, 3, 0, 4]) })) }),
  'workspace/didChangeConfiguration': (c) => ({ settings: c.random.chance(0.1) ? null : settings(c) }),
  'workspace/didChangeWorkspaceFolders': (c) => ({ event: { added: c.random.chance(0.3) ? [{ uri: strayUri(c), name: 'x' }] : [], removed: c.random.chance(0.3) ? [{ uri: strayUri(c), name: 'y' }] : [] } }),
  '$/cancelRequest': (c) => ({ id: c.random.chance(0.5) ? oddNumber(c.random) : oddString(c.random) }),
  '$/setTrace': (c) => ({ value: c.random.pick(['off', 'messages', 'verbose', 'bogus']) }),
  'window/workDoneProgress/cancel': (c) => ({ token: oddString(c.random) }),
  'textDocument/hover': (c) => ({ textDocument: { uri: someUri(c) }, position: position(c.random) }),
  'reposhapley/noSuchMethod': (c) => randomJson(c.random, 2),
};

/** Methods that are requests in LSP (the rest are notifications). */
const REQUESTS = new Set(['textDocument/inlineCompletion', 'textDocument/completion', 'reposhapley/completionTrace', 'textDocument/hover', 'reposhapley/noSuchMethod']);

/**
 * Workspace-folder changes re-index the workspace: kept rare so the run is not all indexing.
 * Completions run the model: kept to a share that keeps a CI run short.
 */
const METHOD_WEIGHTS: readonly (readonly [number, string])[] = [
  [6, 'textDocument/inlineCompletion'], [3, 'textDocument/completion'], [4, 'reposhapley/completionTrace'],
  [6, 'textDocument/didOpen'], [4, 'textDocument/didClose'], [1, 'textDocument/didSave'],
  [3, 'workspace/didChangeWatchedFiles'], [2, 'workspace/didChangeConfiguration'], [0.1, 'workspace/didChangeWorkspaceFolders'],
  [4, '$/cancelRequest'], [1, '$/setTrace'], [1, 'window/workDoneProgress/cancel'], [2, 'textDocument/hover'], [2, 'reposhapley/noSuchMethod'],
];

/** A message of a random method with well-formed, mutated or arbitrary parameters. */
export const lspParamsCase: CaseGenerator = (context) => {
  const { random } = context;
  const method = random.weighted(METHOD_WEIGHTS);
  const template = TEMPLATES[method]!(context);
  const params = random.weighted<() => unknown>([
    [5, () => template],
    [4, () => mutate(random, template)],
    [1, () => randomJson(random, 3)],
    [0.5, () => undefined],
  ])();
  tameThreads(params);
  // Requests as notifications and notifications as requests happen too: both must be harmless.
  const asRequest = REQUESTS.has(method) ? random.chance(0.95) : random.chance(0.05);
  return asRequest ? requestCase(context, method, params) : { kind: `params/${method}`, bytes: framed(JSON.stringify({ jsonrpc: '2.0', method, params })), requestIds: [] };
};

/**
 * Thread counts above the machine's cores are valid settings (up to 256) but make every
 * completion take seconds to minutes on 2 cores (llama.cpp threads spin for cores they cannot
 * get): a real hazard, reported in docs/reliability.md, but not what this fuzz is after.
 */
function tameThreads(value: unknown, depth = 0): void {
  if (typeof value !== 'object' || value === null || depth > 4) return;
  const record = value as Record<string, unknown>;
  if (typeof record.threads === 'number' && record.threads > 2) record.threads = 2;
  for (const child of Object.values(record)) tameThreads(child, depth + 1);
}

function requestCase(context: FuzzContext, method: string, params: unknown): FuzzCase {
  const { bytes, id } = request(context, method, params);
  return { kind: `params/${method}`, bytes, requestIds: [id] };
}
