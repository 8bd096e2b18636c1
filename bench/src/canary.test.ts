/**
 * THE canary test: the target of a task never reaches the server. A fixture repository gets a
 * unique canary token on every line on disk; the real driver runs the built server (stdio) with
 * a tiny GGUF and `tracePrompt: true`; no task's own canaries may appear in a retrieved chunk,
 * the rendered prompt or the completion. Two controls keep the test honest: canaries of OTHER
 * lines must show up in prompts (so the check can see them at all), and the same tasks with the
 * target left in the buffer must be caught.
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { writeTinyModel } from '../../test/support/tinyModel.js';
import { driveTasks } from './driver/driveTasks.js';
import { findLeaks } from './driver/leakAudit.js';
import { keystrokesOf } from './driver/typingReplay.js';
import type { TaskResult } from './driver/results.js';
import { buildTasks } from './tasks/buildTasks.js';
import type { BenchTask } from './tasks/types.js';

const CANARY = /canary_[0-9a-f]{8}/g;

/** The fixture's sources; every non-blank line gets `  # canary_XXXXXXXX` appended on disk. */
const SOURCES: Record<string, string> = {
  'shapes/__init__.py': `from .geometry import Circle, Rectangle, area_of
from .report import describe, summarize
`,
  'shapes/geometry.py': `import math


class Circle:
    def __init__(self, radius):
        self.radius = radius

    def area(self):
        """Area of the circle."""
        squared = self.radius * self.radius
        result = math.pi * squared
        return round(result, 6)


class Rectangle:
    def __init__(self, width, height):
        self.width = width
        self.height = height

    def area(self):
        """Area of the rectangle."""
        product = self.width * self.height
        checked = max(product, 0)
        return checked


def area_of(shape):
    """Area of any shape."""
    value = shape.area()
    if value < 0:
        raise ValueError(value)
    return value
`,
  'shapes/report.py': `from .geometry import Circle, Rectangle, area_of


def describe(shape):
    """One line about a shape."""
    name = type(shape).__name__
    size = area_of(shape)
    text = f"{name} of area {size}"
    return text


def summarize(shapes):
    """Total area and descriptions."""
    total = sum(area_of(s) for s in shapes)
    lines = [describe(s) for s in shapes]
    lines.append(f"total {total}")
    return "\\n".join(lines)


def default_shapes():
    circle = Circle(2.0)
    rectangle = Rectangle(3.0, 4.0)
    return [circle, rectangle]
`,
  'app.py': `from shapes.geometry import Circle, Rectangle, area_of
from shapes.report import describe, summarize


def main():
    shapes = [Circle(1.5), Rectangle(2.0, 5.0)]
    for shape in shapes:
        print(describe(shape))
    print(summarize(shapes))
    return area_of(shapes[0])
`,
};

/** Deterministic distinct canaries: 8 hex digits from a counter. */
function withCanaries(sources: Record<string, string>): Record<string, string> {
  let counter = 0x1000;
  const next = () => `canary_${(counter++ * 2654435761 >>> 0).toString(16).padStart(8, '0')}`;
  return Object.fromEntries(Object.entries(sources).map(([file, text]) => [
    file, text.split('\n').map((line) => (line.trim() ? `${line}  # ${next()}` : line)).join('\n'),
  ]));
}

let workDir: string;
let root: string;
let modelPath: string;
let tasks: BenchTask[];
const read = (relPath: string) => readFileSync(path.join(root, relPath), 'utf8');

beforeAll(async () => {
  workDir = await mkdtemp(path.join(os.tmpdir(), 'reposhapley-canary-'));
  root = path.join(workDir, 'repo');
  for (const [file, text] of Object.entries(withCanaries(SOURCES))) {
    await mkdir(path.dirname(path.join(root, file)), { recursive: true });
    await writeFile(path.join(root, file), text);
  }
  modelPath = (await writeTinyModel({ path: path.join(workDir, 'tiny.gguf'), contextLength: 4096 })).path;
  tasks = (await buildTasks([{ name: 'canary-fixture', root }], { types: ['line', 'api', 'block'], limit: 15, seed: 7, perFileCap: 2 })).tasks;
});

afterAll(async () => {
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

function drive(taskList: readonly BenchTask[]): Promise<{ results: TaskResult[] }> {
  return driveTasks(taskList, {
    arms: [{ policy: 'none' }, { policy: 'full' }, { policy: 'reposhapley' }],
    settings: { modelPath, threads: 1, maxTokens: 12, tracePrompt: true },
    limits: { requestTimeoutMs: 60_000 },
    env: { REPOSHAPLEY_MODEL: '' },
  });
}

function leaksOf(taskList: readonly BenchTask[], results: readonly TaskResult[]) {
  const byId = new Map(taskList.map((t) => [t.id, t]));
  return results.flatMap((r) => {
    const task = byId.get(r.taskId)!;
    return findLeaks(task, r, task.target.match(CANARY) ?? [], read);
  });
}

describe('the target never reaches the server', () => {
  test('the fixture yields every task type, each with its own canary', async () => {
    expect(new Set(tasks.map((t) => t.type))).toEqual(new Set(['line', 'api', 'block']));
    for (const task of tasks) {
      const canaries = task.target.match(CANARY) ?? [];
      expect(canaries.length, task.id).toBeGreaterThan(0);
      // On disk, each canary is on its target line only: in the file once, and not in the buffer.
      for (const canary of canaries) {
        expect((await readFile(task.absPath, 'utf8')).split(canary).length - 1).toBe(1);
        expect(task.prefix + task.suffix).not.toContain(canary);
      }
    }
  });

  test('no canary in a retrieved chunk, a prompt or a completion; other lines\' canaries do reach prompts', async () => {
    const { results } = await drive(tasks);
    expect(results).toHaveLength(tasks.length * 3);
    expect(results.filter((r) => r.outcome === 'error' || r.outcome === 'timeout')).toEqual([]);
    const traced = results.filter((r) => r.trace?.prompt !== undefined);
    expect(traced).toHaveLength(results.length);
    // Positive control: retrieval ran, and canaries of other lines (in-file context and chunks of
    // other files) are in prompts, so comments survive into prompts and the check can see them.
    const retrieved = results.filter((r) => r.policy === 'full' && r.trace!.candidates.some((c) => c.kept));
    expect(retrieved.length).toBeGreaterThan(0);
    const crossFile = retrieved.filter((r) => {
      const task = tasks.find((t) => t.id === r.taskId)!;
      return (r.trace!.prompt!.match(CANARY) ?? []).some((token) => !read(task.relPath).includes(token));
    });
    expect(crossFile.length).toBeGreaterThan(0);
    expect(leaksOf(tasks, results)).toEqual([]);
  }, 180_000);

  test('negative control: with the target left in the buffer, the canary is caught', async () => {
    const leaky = tasks.slice(0, 3).map((task) => ({ ...task, suffix: task.target + task.suffix }));
    const { results } = await drive(leaky);
    const leaks = leaksOf(leaky, results);
    const caughtTasks = new Set(leaks.filter((l) => l.where === 'prompt').map((l) => l.taskId));
    expect([...caughtTasks].sort()).toEqual(leaky.map((t) => t.id).sort());
  }, 120_000);
});

describe('--typing mode on the same fixture', () => {
  test('replays keystrokes, cancels what the next key overtakes, scores the rest of the target', async () => {
    const typed = tasks.filter((t) => t.type !== 'block').slice(0, 2);
    const { results } = await driveTasks(typed, {
      arms: [{ policy: 'full' }], settings: { modelPath, threads: 1, maxTokens: 8 }, limits: { requestTimeoutMs: 60_000 },
      env: { REPOSHAPLEY_MODEL: '' }, typing: { gapMinMs: 5, gapMaxMs: 20, maxKeystrokes: 4, seed: 1 },
    });
    expect(results).toHaveLength(2);
    for (const result of results) {
      const task = typed.find((t) => t.id === result.taskId)!;
      const keys = keystrokesOf(task.target, 4);
      const stats = result.typing!;
      expect(stats.keystrokes).toBe(keys.length);
      expect(stats.requests).toBe(keys.length + 1);
      expect(stats.cancelled + stats.shown + stats.empty).toBeLessThanOrEqual(stats.requests);
      expect(result.target).toBe(task.target.slice(keys.join('').length));
      // The final trace is the request after the last keystroke, at the cursor it moved to.
      expect(result.trace?.character).toBe(task.cursor.character + keys.join('').length);
      // The user rested for the first ghost text: never cancelled, its latency is the arrival's.
      expect(Number.isFinite(stats.firstMs)).toBe(true);
      expect(stats.keystrokeMs.length).toBeLessThanOrEqual(keys.length);
      // Model answers are the keystroke answers that came neither from the cache nor without a trace.
      expect(stats.modelKeystrokeMs!.length + stats.cacheHits).toBeLessThanOrEqual(stats.keystrokeMs.length);
      expect(stats.modelKeystrokeMs!.every((ms) => stats.keystrokeMs.includes(ms))).toBe(true);
    }
  }, 120_000);
});
