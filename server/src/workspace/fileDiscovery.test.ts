import { chmod, mkdir, mkdtemp, rm, symlink, unlink, writeFile } from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createMemoryLogger } from '../util/logger.js';
import { nodeDiscoveryFs, type DiscoveryFs, type FileStat } from './discoveryFs.js';
import { discoverAll, discoverSingleFile, readInOrder, type CandidateFile } from './fileDiscovery.js';
import { resolveRoots } from './paths.js';

let tmp: string;
let root: string;
let outside: string;

async function put(file: string, content: string | Uint8Array): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, content);
}

const VENDORED = [
  'vendor/v.py', '_vendor/v.py', 'third_party/t.py', 'site-packages/s.py', 'dist/d.py', 'build/b.py', '.venv/v.py',
  'venv/v.py', 'node_modules/n.py', 'migrations/m0001.py', '__pycache__/c.py', '.git/hook.py', '.tox/t.py',
  '.mypy_cache/m.py', 'pkg/vendor/deep.py',
];

beforeAll(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'rs-discovery-'));
  root = path.join(tmp, 'root');
  outside = path.join(tmp, 'outside');
  const files: Record<string, string | Uint8Array> = {
    'a.py': 'a = 1\n',
    '.gitignore': 'ignored.py\n*.gen.py\nbuild_out/\nkeep_me.py\n',
    'ignored.py': 'x = 1\n', 'x.gen.py': 'x = 1\n', 'build_out/x.py': 'x = 1\n', 'keep_me.py': 'x = 1\n',
    'sub/.gitignore': 'local.py\n!keep_me.py\n',
    'sub/local.py': 'x = 1\n', 'sub/ok.py': 'ok = 1\n', 'sub/keep_me.py': 'kept = 1\n',
    'other/local.py': 'x = 1\n',
    'notes.txt': 'not python\n',
    'big.py': 'x = 1\n'.repeat(174_763), // 1,048,578 bytes: over 1 MiB
    'exact.py': 'x = 1\n'.repeat(174_762) + 'y=1\n', // exactly 1 MiB: allowed
    'nul.py': 'a = 1\n\0\n',
    'minified_long.py': `x = "${'a'.repeat(400)}"\n`,
    'minified_mean.py': `x = "${'a'.repeat(150)}"\n`.repeat(10),
    'trailing_ws.py': `x = 1${' '.repeat(400)}\n`,
    'latin.py': new Uint8Array([0x73, 0x20, 0x3d, 0x20, 0x27, 0xff, 0xfe, 0x27, 0x0a]),
    'loop/inner.py': 'inner = 1\n',
    ...Object.fromEntries(VENDORED.map((f) => [f, 'v = 1\n'])),
  };
  for (const [rel, content] of Object.entries(files)) await put(path.join(root, rel), content);
  await put(path.join(outside, 'secret.py'), 'SECRET = 1\n');
  await symlink(outside, path.join(root, 'link_out'));
  await symlink(path.join(outside, 'secret.py'), path.join(root, 'link_secret.py'));
  await symlink(path.join(root, 'loop'), path.join(root, 'loop', 'self'));
  await symlink(path.join(root, 'sub'), path.join(root, 'alias'));
  await symlink(path.join(root, 'nowhere.py'), path.join(root, 'dangling.py'));
  await symlink(path.join(root, 'a.py'), path.join(root, 'a_link.py'));
});

afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

/** Records every path the walk touches, to prove nothing outside the root is read. */
function spyingFs(touched: string[]): DiscoveryFs {
  return {
    readdir: (dir) => (touched.push(dir), nodeDiscoveryFs.readdir(dir)),
    readFile: (file) => (touched.push(file), nodeDiscoveryFs.readFile(file)),
    stat: (p) => (touched.push(p), nodeDiscoveryFs.stat(p)),
    realpath: (p) => nodeDiscoveryFs.realpath(p),
  };
}

describe('discovery on an awkward workspace', () => {
  test('indexes exactly the files that pass every rule, in a deterministic order', async () => {
    const first = await discoverAll([root]);
    const second = await discoverAll([root]);
    expect(first.files.map((f) => f.relPath)).toEqual([
      'a.py', 'exact.py', 'latin.py', 'loop/inner.py', 'other/local.py', 'sub/keep_me.py', 'sub/ok.py', 'trailing_ws.py',
    ]);
    expect(second.files.map((f) => f.relPath)).toEqual(first.files.map((f) => f.relPath));
    expect(first.cancelled).toBe(false);
  });

  test.each([
    ['ignored.py', 'ignored-by-gitignore'],
    ['x.gen.py', 'ignored-by-gitignore'],
    ['build_out', 'ignored-by-gitignore'],
    ['keep_me.py', 'ignored-by-gitignore'],
    ['sub/local.py', 'ignored-by-gitignore'],
    ['big.py', 'too-large'],
    ['nul.py', 'binary'],
    ['minified_long.py', 'minified'],
    ['minified_mean.py', 'minified'],
    ['link_out', 'outside-workspace'],
    ['link_secret.py', 'outside-workspace'],
    ['loop/self', 'symlink-loop'],
    ['alias', 'symlink-loop'],
    ['a_link.py', 'symlink-loop'],
    ['dangling.py', 'unreadable'],
    ...VENDORED.map((f) => [f.split('/').slice(0, -1).join('/'), 'vendored-or-generated-directory']),
  ])('skips %s: %s', async (relPath, reason) => {
    const { skipped } = await discoverAll([root]);
    expect(skipped.filter((s) => s.relPath === relPath).map((s) => s.reason)).toEqual([reason]);
  });

  test('nothing outside the root is read, not even through symlinks', async () => {
    const touched: string[] = [];
    await discoverAll([root], { fs: spyingFs(touched) });
    expect(touched.length).toBeGreaterThan(10);
    expect(touched.filter((p) => p.startsWith(outside))).toEqual([]);
  });

  test('invalid UTF-8 is decoded with replacement characters', async () => {
    const { files } = await discoverAll([root]);
    expect(files.find((f) => f.relPath === 'latin.py')?.text).toBe("s = '\uFFFD\uFFFD'\n");
  });

  test('each skip is logged once with its reason, across runs sharing the reported set', async () => {
    const logger = createMemoryLogger();
    const reported = new Set<string>();
    await discoverAll([root], { logger, reported });
    await discoverAll([root], { logger, reported });
    const bigLines = logger.lines.filter((l) => l.includes('big.py'));
    expect(bigLines).toEqual([expect.stringMatching(/^\[info\] skipped big\.py: too-large/)]);
    expect(logger.lines.filter((l) => l.includes('vendor/')).every((l) => l.startsWith('[debug]'))).toBe(true);
  });

  test('a symlinked root is walked, file paths are built from the root as given', async () => {
    const linkedRoot = path.join(tmp, 'linked-root');
    await symlink(root, linkedRoot);
    const { files } = await discoverAll([linkedRoot]);
    expect(files.find((f) => f.relPath === 'a.py')).toMatchObject({ absPath: path.join(linkedRoot, 'a.py'), realPath: path.join(root, 'a.py') });
  });
});

describe('failures are skips, never exceptions', () => {
  const failing = (code: string, match: (p: string) => boolean, on: 'readFile' | 'readdir'): DiscoveryFs => ({
    ...nodeDiscoveryFs,
    [on]: async (p: string) => {
      if (match(p)) throw Object.assign(new Error(`${code}: simulated`), { code });
      return (nodeDiscoveryFs[on] as (p: string) => Promise<unknown>)(p);
    },
  });

  test('an unreadable file (EACCES, injected so it holds when running as root)', async () => {
    const fs = failing('EACCES', (p) => p.endsWith(`${path.sep}a.py`), 'readFile');
    const { files, skipped } = await discoverAll([root], { fs });
    expect(files.map((f) => f.relPath)).not.toContain('a.py');
    expect(skipped.find((s) => s.relPath === 'a.py')).toMatchObject({ reason: 'unreadable', detail: 'permission denied' });
  });

  test('an unreadable directory', async () => {
    const fs = failing('EACCES', (p) => p.endsWith(`${path.sep}sub`), 'readdir');
    const { files, skipped } = await discoverAll([root], { fs });
    expect(files.some((f) => f.relPath.startsWith('sub/'))).toBe(false);
    expect(skipped.find((s) => s.relPath === 'sub')).toMatchObject({ reason: 'unreadable' });
  });

  const isRoot = process.getuid?.() === 0;
  test.skipIf(isRoot)('a chmod 000 file on the real file system (skipped as root: root reads it anyway)', async () => {
    const locked = path.join(tmp, 'locked');
    await put(path.join(locked, 'secret.py'), 'x = 1\n');
    await chmod(path.join(locked, 'secret.py'), 0o000);
    const { skipped } = await discoverAll([locked]);
    expect(skipped.find((s) => s.relPath === 'secret.py')).toMatchObject({ reason: 'unreadable' });
  });

  test('a file deleted between the directory listing and the read', async () => {
    const scratch = path.join(tmp, 'vanishing');
    await put(path.join(scratch, 'stays.py'), 'x = 1\n');
    await put(path.join(scratch, 'goes.py'), 'y = 2\n');
    const fs: DiscoveryFs = {
      ...nodeDiscoveryFs,
      stat: async (p) => {
        if (p.endsWith('goes.py')) await unlink(p).catch(() => undefined);
        return nodeDiscoveryFs.stat(p);
      },
    };
    const { files, skipped } = await discoverAll([scratch], { fs });
    expect(files.map((f) => f.relPath)).toEqual(['stays.py']);
    expect(skipped).toEqual([expect.objectContaining({ relPath: 'goes.py', reason: 'unreadable' })]);
  });

  test('a missing root', async () => {
    const { files, skipped } = await discoverAll([path.join(tmp, 'does-not-exist')]);
    expect(files).toEqual([]);
    expect(skipped).toEqual([expect.objectContaining({ relPath: '', reason: 'unreadable' })]);
  });

  test('a workspace without source of a registered language gives no files and no error', async () => {
    const empty = path.join(tmp, 'no-python');
    await put(path.join(empty, 'README.md'), '# hi\n');
    await put(path.join(empty, 'src', 'main.c'), 'int main(void) { return 0; }\n');
    expect(await discoverAll([empty])).toEqual({ files: [], skipped: [], cancelled: false });
  });

  test('abort stops the walk and says so', async () => {
    const controller = new AbortController();
    controller.abort();
    const result = await discoverAll([root], { signal: controller.signal });
    expect(result).toEqual({ files: [], skipped: [], cancelled: true });
  });
});

describe('single files (watcher events) follow the same rules', () => {
  test.each([
    ['a.py', 'file'],
    ['sub/ok.py', 'file'],
    ['sub/keep_me.py', 'file'],
    ['keep_me.py', 'ignored-by-gitignore'],
    ['sub/local.py', 'ignored-by-gitignore'],
    ['build_out/x.py', 'ignored-by-gitignore'],
    ['pkg/vendor/deep.py', 'vendored-or-generated-directory'],
    ['notes.txt', 'not-source'],
    ['big.py', 'too-large'],
    ['link_secret.py', 'outside-workspace'],
    ['link_out/secret.py', 'outside-workspace'],
    ['gone.py', 'unreadable'],
  ])('%s -> %s', async (relPath, expected) => {
    const result = await discoverSingleFile(path.join(root, relPath), await resolveRoots([root]));
    expect(result.kind === 'file' ? 'file' : result.skip.reason).toBe(expected);
  });
});

describe('reading with reads in flight', () => {
  test('files come back in their order while the reads after them overlap, at most `depth` at once', async () => {
    const names = ['a.py', 'b.py', 'c.py', 'd.py', 'e.py', 'f.py'];
    let inFlight = 0;
    let most = 0;
    const fs: DiscoveryFs = {
      ...nodeDiscoveryFs,
      stat: async (): Promise<FileStat> => ({ size: 8, isFile: () => true, isDirectory: () => false }),
      readFile: async (file) => {
        most = Math.max(most, ++inFlight);
        // The first file is the slowest: the others finish before it and must wait their turn.
        await new Promise((resolve) => setTimeout(resolve, file.endsWith('a.py') ? 30 : 1));
        inFlight--;
        return Buffer.from(`# ${path.basename(file)}\n`);
      },
    };
    const [workspaceRoot] = await resolveRoots([root]);
    const candidates: CandidateFile[] = names.map((name) => ({ root: workspaceRoot!, absPath: path.join(root, name), realPath: path.join(root, name), relPath: name }));
    const texts: string[] = [];
    for await (const read of readInOrder(candidates, { fs }, 3)) texts.push(read.kind === 'file' ? read.file.text : read.skip.reason);
    expect(texts).toEqual(names.map((name) => `# ${name}\n`));
    expect(most).toBe(3);
  });
});
