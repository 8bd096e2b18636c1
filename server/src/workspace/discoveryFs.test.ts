import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { defaultDiscoveryFs, readContainedFileSync } from './discoveryFs.js';

const never = () => false;

describe('readExact: open first, then check what was opened (issue 22)', () => {
  test('reads a plain file', async () => {
    const dir = realpathSync(mkdtempSync(path.join(tmpdir(), 'exact-')));
    writeFileSync(path.join(dir, 'a.py'), 'x = 1\n');
    const read = await defaultDiscoveryFs.readExact!(path.join(dir, 'a.py'), never);
    expect(read.kind === 'ok' && Buffer.from(read.bytes).toString()).toBe('x = 1\n');
  });

  test('a directory swapped for a symlink to an outside folder after the path was resolved is not read', async () => {
    const base = realpathSync(mkdtempSync(path.join(tmpdir(), 'exact-')));
    const [root, outside] = [path.join(base, 'root'), path.join(base, 'outside')];
    mkdirSync(path.join(root, 'pkg'), { recursive: true });
    mkdirSync(outside);
    writeFileSync(path.join(root, 'pkg', 'mod.py'), 'inside = 1\n');
    writeFileSync(path.join(outside, 'mod.py'), 'SECRET = 1\n');
    const resolved = realpathSync(path.join(root, 'pkg', 'mod.py')); // discovery resolved it here…
    renameSync(path.join(root, 'pkg'), path.join(base, 'pkg-moved')); // …then a local process swaps the folder
    symlinkSync(outside, path.join(root, 'pkg'));
    const read = await defaultDiscoveryFs.readExact!(resolved, never);
    expect(read).toEqual({ kind: 'moved', opened: path.join(outside, 'mod.py') });
  });

  test('a final symlink is refused (ELOOP), a FIFO is not a file and does not block, a large file is not read', async () => {
    const dir = realpathSync(mkdtempSync(path.join(tmpdir(), 'exact-')));
    writeFileSync(path.join(dir, 'big.py'), 'x'.repeat(100));
    symlinkSync(path.join(dir, 'big.py'), path.join(dir, 'link.py'));
    await expect(defaultDiscoveryFs.readExact!(path.join(dir, 'link.py'), never)).rejects.toMatchObject({ code: 'ELOOP' });
    execFileSync('mkfifo', [path.join(dir, 'pipe.py')]);
    expect(await defaultDiscoveryFs.readExact!(path.join(dir, 'pipe.py'), never)).toEqual({ kind: 'not-file' });
    expect(await defaultDiscoveryFs.readExact!(path.join(dir, 'big.py'), (size) => size > 10)).toEqual({ kind: 'too-large', size: 100 });
  });
});

describe('readContainedFileSync: a project file or .gitignore read only when it really is inside the root', () => {
  const setup = () => {
    const base = realpathSync(mkdtempSync(path.join(tmpdir(), 'contained-')));
    const [root, outside] = [path.join(base, 'root'), path.join(base, 'outside')];
    mkdirSync(path.join(root, 'sub'), { recursive: true });
    mkdirSync(outside);
    writeFileSync(path.join(outside, 'tsconfig.json'), '{ "outside": true }');
    return { root, outside };
  };

  test('a plain file inside is read; an absent one, a directory or one over the size is not', () => {
    const { root } = setup();
    writeFileSync(path.join(root, 'tsconfig.json'), '{ "inside": true }');
    expect(readContainedFileSync(path.join(root, 'tsconfig.json'), root, 1024)).toBe('{ "inside": true }');
    expect(readContainedFileSync(path.join(root, 'tsconfig.json'), root, 5)).toBeUndefined();
    expect(readContainedFileSync(path.join(root, 'absent.json'), root, 1024)).toBeUndefined();
    expect(readContainedFileSync(path.join(root, 'sub'), root, 1024)).toBeUndefined();
  });

  test('not through a symlink: at the end, or a directory on the way that leads out', () => {
    const { root, outside } = setup();
    symlinkSync(path.join(outside, 'tsconfig.json'), path.join(root, 'tsconfig.json'));
    symlinkSync(outside, path.join(root, 'linked'));
    expect(readContainedFileSync(path.join(root, 'tsconfig.json'), root, 1024)).toBeUndefined();
    expect(readContainedFileSync(path.join(root, 'linked', 'tsconfig.json'), root, 1024)).toBeUndefined();
    expect(readContainedFileSync(path.join(outside, 'tsconfig.json'), root, 1024)).toBeUndefined();
  });
});
