/**
 * Temporary workspaces and the tiny model for reliability runs. Every run gets its own
 * directory under the OS temp dir, removed by `dispose()`.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { writeTinyModel } from '../support/tinyModel.js';

/** A module the probe document imports from; retrieval should find it. */
export const HELPERS_PY = `"""Helpers the probe module uses."""


def scale_vector(values, factor):
    """Multiply every value by factor."""
    return [value * factor for value in values]


def clamp(value, low, high):
    return max(low, min(high, value))


class Accumulator:
    def __init__(self):
        self.total = 0

    def add(self, amount):
        self.total += amount
        return self.total
`;

/** The probe document: always open, never touched by random traffic. */
export const PROBE_PY = `from lib.helpers import Accumulator, clamp, scale_vector


def summarize(values):
    acc = Accumulator()
    for value in scale_vector(values, 2):
        acc.add(clamp(value, 0, 10))
    return acc.
`;

/** Where the probe completes: the end of `return acc.` (0-based line 7). */
export const PROBE_POSITION = { line: 7, character: '    return acc.'.length };

/** A temporary directory with a workspace and a tiny model in it. */
export interface TempWorkspace {
  /** The temporary directory holding everything. */
  dir: string;
  /** The workspace root (dir/ws). */
  root: string;
  /** A tiny GGUF that node-llama-cpp loads (dir/tiny.gguf). */
  modelPath: string;
  probeUri: string;
  /** Writes `text` to `relPath` under the root (directories created). */
  write(relPath: string, text: string | Buffer): string;
  uri(relPath: string): string;
  dispose(): void;
}

/** A workspace with lib/helpers.py and probe.py, plus a tiny model next to it (in `fixedDir` when given: replays). */
export async function createTempWorkspace(prefix = 'reposhapley-rel-', fixedDir?: string): Promise<TempWorkspace> {
  const dir = fixedDir ?? mkdtempSync(path.join(os.tmpdir(), prefix));
  mkdirSync(dir, { recursive: true });
  const root = path.join(dir, 'ws');
  mkdirSync(root);
  const modelPath = path.join(dir, 'tiny.gguf');
  await writeTinyModel({ path: modelPath, contextLength: 4096 });
  const write = (relPath: string, text: string | Buffer): string => {
    const file = path.join(root, relPath);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, text);
    return file;
  };
  write('lib/__init__.py', '');
  write('lib/helpers.py', HELPERS_PY);
  write('probe.py', PROBE_PY);
  return {
    dir, root, modelPath, write,
    probeUri: pathToFileURL(path.join(root, 'probe.py')).href,
    uri: (relPath) => pathToFileURL(path.join(root, relPath)).href,
    dispose: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** Settings for runs on the tiny model: one thread (2 busy cores), short generations. */
export function tinyModelSettings(modelPath: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  // The model host ends with the test's last server (a strace'd server is waited for with its
  // children); test/reliability/sharedHost.test.ts and the unit tests cover the idle time.
  return { modelPath, threads: 1, maxTokens: 8, modelHostIdleSeconds: 0, ...extra };
}
