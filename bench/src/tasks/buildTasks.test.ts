import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { buildTasks, type Repository } from './buildTasks.js';
import { MAX_BLOCK_LINES, MIN_BLOCK_LINES } from './blockTasks.js';
import type { BenchTask } from './types.js';

const FILES: Record<string, string> = {
  'pkg/__init__.py': 'from .api import fetch\n',
  'pkg/api.py': [
    'def fetch(url):',
    '    """Fetch a URL."""',
    '    parts = url.split("/")',
    '    host = parts[2]',
    '    return host',
    '',
    'class Client:',
    '    @classmethod',
    '    def make(cls):',
    '        return cls()',
    '',
  ].join('\n'),
  'pkg/util.py': 'def helper(value):\n    doubled = value * 2\n    tripled = value * 3\n    return doubled + tripled\n',
  'main.py': [
    'import pkg.util as u',
    'from pkg import fetch',
    'from pkg.api import Client',
    'from pkg import util',
    '',
    'def local(x):',
    '    return x',
    '',
    'def run():',
    '    print(len("abc"))',
    '    label = "😀 emoji " + fetch("http://h/x")',
    '    total = u.helper(1) + util.helper(2)',
    '    client = Client.make()',
    '    again = local(total)',
    '    return label, client, again',
    '',
  ].join('\n'),
};

let dir: string;
let repo: Repository;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'reposhapley-tasks-'));
  for (const [file, text] of Object.entries(FILES)) {
    await mkdir(path.dirname(path.join(dir, file)), { recursive: true });
    await writeFile(path.join(dir, file), text);
  }
  repo = { name: 'fixture', root: dir };
});

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

const all = (seed = 1, limit = 1000, perFileCap = 100) => buildTasks([repo], { types: ['line', 'api', 'block'], limit, seed, perFileCap });

describe('buildTasks', () => {
  test('every task cuts its file exactly: prefix + target + suffix is the disk text', async () => {
    const { tasks } = await all();
    expect(tasks.length).toBeGreaterThan(10);
    for (const task of tasks) {
      expect(task.prefix + task.target + task.suffix).toBe(await readFile(task.absPath, 'utf8'));
      const lines = task.prefix.split('\n');
      expect({ line: lines.length - 1, character: lines[lines.length - 1]!.length }).toEqual(task.cursor);
    }
  });

  test('API tasks: calls resolved through imports to another file, cursor at the call', async () => {
    const { tasks } = await all();
    const api = tasks.filter((t) => t.type === 'api' && t.relPath === 'main.py');
    const byTarget = Object.fromEntries(api.map((t) => [t.target, t.callee]));
    expect(byTarget).toEqual({
      // Re-exported by pkg/__init__.py, defined in pkg/api.py.
      'fetch("http://h/x")': { name: 'fetch', qualifiedName: 'fetch', relPath: 'pkg/api.py', kind: 'function', startLine: 0, endLine: 5 },
      // `import pkg.util as u`: the leftmost resolving call of the line.
      'u.helper(1) + util.helper(2)': { name: 'helper', qualifiedName: 'helper', relPath: 'pkg/util.py', kind: 'function', startLine: 0, endLine: 4 },
      // Lines [start, end) of the definition, its decorator included.
      'Client.make()': { name: 'make', qualifiedName: 'Client.make', relPath: 'pkg/api.py', kind: 'method', startLine: 7, endLine: 10 },
    });
    // The cursor counts UTF-16 units: the emoji before the call is two.
    const fetchTask = api.find((t) => t.target.startsWith('fetch'))!;
    expect(fetchTask.cursor.character).toBe('    label = "😀 emoji " + '.length);
    // Builtins and same-file functions are not API tasks.
    expect(api.some((t) => t.target.startsWith('len') || t.target.startsWith('local'))).toBe(false);
  });

  test('block tasks: bodies of 3–15 lines after the docstring, cursor after the indentation', async () => {
    const { tasks } = await all();
    const blocks = tasks.filter((t) => t.type === 'block');
    expect(blocks.map((t) => `${t.relPath}:${t.target.split('\n')[0]}`).sort()).toEqual([
      'main.py:print(len("abc"))',
      'pkg/api.py:parts = url.split("/")',
      'pkg/util.py:doubled = value * 2',
    ]);
    for (const block of blocks) {
      const lines = block.target.split('\n').length;
      expect(lines).toBeGreaterThanOrEqual(MIN_BLOCK_LINES);
      expect(lines).toBeLessThanOrEqual(MAX_BLOCK_LINES);
      expect(block.mode).toBe('block');
      expect(block.prefix.endsWith('\n    ') || block.prefix.endsWith('\n        ')).toBe(true);
    }
  });

  test('line tasks: code lines with 6+ non-space characters, no docstrings or blanks', async () => {
    const { tasks } = await all();
    const lines = tasks.filter((t) => t.type === 'line');
    for (const task of lines) {
      expect(task.target.replace(/\s/g, '').length).toBeGreaterThanOrEqual(6);
      expect(task.target).not.toMatch(/^"""/);
      expect(task.target).toBe(task.target.trimStart());
      expect(task.mode).toBe('line');
    }
    expect(lines.map((t) => t.target)).toContain('return cls()');
  });

  test('deterministic for a seed, different for another; limit and per-file cap hold', async () => {
    const ids = (tasks: BenchTask[]) => tasks.map((t) => t.id);
    const first = await all(3, 9, 1);
    expect(ids((await all(3, 9, 1)).tasks)).toEqual(ids(first.tasks));
    expect(first.tasks).toHaveLength(first.stats[0]!.chosen.line + first.stats[0]!.chosen.api + first.stats[0]!.chosen.block);
    expect(first.tasks.length).toBeLessThanOrEqual(9);
    const perFileType = new Map<string, number>();
    for (const t of first.tasks) perFileType.set(`${t.relPath}:${t.type}`, (perFileType.get(`${t.relPath}:${t.type}`) ?? 0) + 1);
    expect(Math.max(...perFileType.values())).toBe(1);
    const other = await all(4, 9, 1);
    expect(ids(other.tasks)).not.toEqual(ids(first.tasks));
  });
});
