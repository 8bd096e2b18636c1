import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, test } from 'vitest';
import { findWorkspaceRoot, parseLocation } from './location.js';

test.each<[string, ReturnType<typeof parseLocation>]>([
  ['a.py:3:5', { file: '/w/a.py', line: 2, character: 4 }],
  ['a.py:1:1', { file: '/w/a.py', line: 0, character: 0 }],
  ['a.py:7', { file: '/w/a.py', line: 6, character: 0 }],
  ['dir:with:colons/a.py:2:3', { file: '/w/dir:with:colons/a.py', line: 1, character: 2 }],
  ['/abs/b.py:10:2', { file: '/abs/b.py', line: 9, character: 1 }],
  ['a.py:0:1', undefined],
  ['a.py:1:0', undefined],
  ['a.py', undefined],
  ['a.py:x:1', { file: '/w/a.py:x', line: 0, character: 0 }],
])('parseLocation(%s)', (text, expected) => {
  expect(parseLocation(text, '/w')).toEqual(expected);
});

test('findWorkspaceRoot: nearest marker, else the file directory', () => {
  const root = mkdtempSync(path.join(tmpdir(), 'reposhapley-root-'));
  const project = path.join(root, 'project');
  const nested = path.join(project, 'src', 'pkg');
  mkdirSync(nested, { recursive: true });
  writeFileSync(path.join(project, 'pyproject.toml'), '');
  expect(findWorkspaceRoot(path.join(nested, 'm.py'))).toBe(project);
  const loose = path.join(root, 'loose');
  mkdirSync(loose);
  // The temp directory's ancestors carry no marker on a normal machine.
  expect(findWorkspaceRoot(path.join(loose, 'x.py'))).toBe(loose);
});
