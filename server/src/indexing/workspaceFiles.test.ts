import { mkdirSync, mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, test } from 'vitest';
import { IndexedFileSet } from './workspaceFiles.js';

test('project files are read inside the importing file\'s root only: a path with `..` out of it is absent', () => {
  const base = realpathSync(mkdtempSync(path.join(tmpdir(), 'project-files-')));
  const root = path.join(base, 'ws');
  mkdirSync(path.join(root, 'src'), { recursive: true });
  writeFileSync(path.join(root, 'tsconfig.json'), '{ "inside": true }');
  writeFileSync(path.join(base, 'tsconfig.base.json'), '{ "outside": true }');
  const files = new IndexedFileSet(() => true);
  const from = { relPath: 'src/a.ts', absPath: path.join(root, 'src', 'a.ts') };
  expect(files.projectFile(from, 'tsconfig.json')).toBe('{ "inside": true }');
  expect(files.projectFile(from, 'src/../tsconfig.json')).toBe('{ "inside": true }');
  expect(files.projectFile(from, '../tsconfig.base.json')).toBeUndefined();
  expect(files.projectFile(from, 'src/../../tsconfig.base.json')).toBeUndefined();
});
