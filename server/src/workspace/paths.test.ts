import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { isInsideRoots, isPathInside, locateInRoots, pathToUri, relativeTo, resolveRoots, uriToPath } from './paths.js';

let tmp: string;
let root: string;
beforeAll(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'rs-paths-'));
  root = path.join(tmp, 'root');
  await mkdir(path.join(root, 'pkg', 'inner'), { recursive: true });
  await mkdir(path.join(tmp, 'elsewhere'));
  await writeFile(path.join(root, 'pkg', 'a.py'), 'a = 1\n');
  await writeFile(path.join(tmp, 'elsewhere', 'b.py'), 'b = 1\n');
  await symlink(path.join(tmp, 'elsewhere'), path.join(root, 'escape'));
  await symlink(path.join(root, 'pkg'), path.join(tmp, 'pkg-link'));
});
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

describe('uris', () => {
  test.each([
    ['file:///home/u/proj/a%20b.py', '/home/u/proj/a b.py'],
    ['file:///home/u/%C3%BCber.py', '/home/u/über.py'],
    ['untitled:Untitled-1', undefined],
    ['vscode-notebook-cell:/x.ipynb#c1', undefined],
  ])('%s -> %s', (uri, expected) => {
    expect(uriToPath(uri)).toBe(expected);
    if (expected) expect(uriToPath(pathToUri(expected))).toBe(expected);
  });
});

describe('containment', () => {
  test.each([
    ['/w/root/a.py', '/w/root', true],
    ['/w/root', '/w/root', true],
    ['/w/root/../other/a.py', '/w/root', false],
    ['/w/rootish/a.py', '/w/root', false],
    ['/w/root/sub/../a.py', '/w/root', true],
  ])('%s inside %s: %s', (child, parent, expected) => {
    expect(isPathInside(child, parent)).toBe(expected);
  });

  test('relPaths use forward slashes and are undefined outside', () => {
    expect(relativeTo('/w/root', '/w/root/pkg/mod.py')).toBe('pkg/mod.py');
    expect(relativeTo('/w/root', '/w/other/mod.py')).toBeUndefined();
  });

  test('isInsideRoots sees through symlinks and ..', async () => {
    expect(await isInsideRoots(path.join(root, 'pkg', 'a.py'), [root])).toBe(true);
    expect(await isInsideRoots(path.join(root, 'escape', 'b.py'), [root])).toBe(false);
    expect(await isInsideRoots(path.join(root, 'pkg', '..', '..', 'elsewhere', 'b.py'), [root])).toBe(false);
    // Reached through a link outside the root, but really inside it.
    expect(await isInsideRoots(path.join(tmp, 'pkg-link', 'a.py'), [root])).toBe(true);
    // A file that does not exist yet is judged by its nearest existing directory.
    expect(await isInsideRoots(path.join(root, 'escape', 'new.py'), [root])).toBe(false);
    expect(await isInsideRoots(path.join(root, 'pkg', 'inner', 'new.py'), [root])).toBe(true);
  });

  test('nested roots: the deepest root owns a file', async () => {
    const roots = await resolveRoots([root, path.join(root, 'pkg'), root]);
    expect(roots).toHaveLength(2);
    expect(locateInRoots(path.join(root, 'pkg', 'a.py'), roots)?.relPath).toBe('a.py');
    expect(locateInRoots(path.join(root, 'escape', 'b.py'), roots)).toBeUndefined();
    expect(locateInRoots(path.join(tmp, 'pkg-link', 'a.py'), roots)?.relPath).toBe('a.py');
  });
});
