import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import {
  DebianPackageError,
  defaultCacheDir,
  dependencyAlternatives,
  fetchCodePackage,
  fetchDebianPackage,
  parsePackageList,
  type CommandResult,
  type CommandRunner,
} from './debianPackages.js';

/** A fake apt/dpkg: `apt-get download` writes a .deb for known packages, `dpkg -x` lays out `tree`. */
class FakeRunner implements CommandRunner {
  calls: string[] = [];
  constructor(
    private readonly known: Record<string, { version: string; tree: Record<string, string>; depends?: string }>,
    private readonly missingPrograms: string[] = [],
  ) {}

  async run(program: string, args: readonly string[], options: { cwd: string }): Promise<CommandResult> {
    this.calls.push(`${program} ${args.join(' ')}`);
    if (this.missingPrograms.includes(program)) {
      const spawnError = Object.assign(new Error(`spawn ${program} ENOENT`), { code: 'ENOENT' });
      return { code: null, stdout: '', stderr: '', spawnError };
    }
    if (program === 'apt-get') {
      const name = args[1]!;
      const pkg = this.known[name];
      if (!pkg) return { code: 100, stdout: '', stderr: `E: Unable to locate package ${name}\n` };
      await writeFile(path.join(options.cwd, `${name}_${encodeURIComponent(pkg.version)}_all.deb`), name);
      return { code: 0, stdout: '', stderr: '' };
    }
    if (program === 'dpkg-deb') {
      const name = path.basename(args[1]!).split('_')[0]!;
      return { code: 0, stdout: `${this.known[name]!.depends ?? ''}\n`, stderr: '' };
    }
    if (program === 'dpkg') {
      const [, debPath, target] = args as [string, string, string];
      const name = path.basename(debPath).split('_')[0]!;
      for (const [file, text] of Object.entries(this.known[name]!.tree)) {
        await mkdir(path.dirname(path.join(target, file)), { recursive: true });
        await writeFile(path.join(target, file), text);
      }
      return { code: 0, stdout: '', stderr: '' };
    }
    throw new Error(`unexpected program ${program}`);
  }
}

const DIST = 'usr/lib/python3/dist-packages';
const REQUESTS = {
  version: '1:2.28.1+dfsg-1',
  tree: {
    [`${DIST}/requests/__init__.py`]: 'x = 1\n',
    [`${DIST}/requests/api.py`]: 'y = 2\n',
    [`${DIST}/six.py`]: 'z = 3\n',
    [`${DIST}/requests-2.28.1.egg-info/PKG-INFO`]: 'meta\n',
    [`${DIST}/requests-2.28.1.dist-info/METADATA`]: 'meta\n',
    [`${DIST}/__pycache__/six.cpython-311.pyc`]: '',
    [`${DIST}/requests.pth`]: '',
    [`${DIST}/_speedups.cpython-311-x86_64-linux-gnu.so`]: '',
    'usr/share/doc/python3-requests/copyright': 'c\n',
  },
};

let cache: string;
beforeEach(async () => {
  cache = await mkdtemp(path.join(os.tmpdir(), 'debpkgs-'));
});
afterEach(async () => {
  await rm(cache, { recursive: true, force: true });
});

describe('fetchDebianPackage', () => {
  test('downloads, unpacks and lists module roots', async () => {
    const runner = new FakeRunner({ 'python3-requests': REQUESTS });
    const pkg = await fetchDebianPackage('python3-requests', { cacheDir: cache, runner });
    expect(pkg.version).toBe('1:2.28.1+dfsg-1');
    expect(pkg.rootDir).toBe(path.join(cache, 'pkgs', 'python3-requests'));
    expect(pkg.moduleRoots).toEqual([path.join(pkg.rootDir, DIST, 'requests'), path.join(pkg.rootDir, DIST, 'six.py')]);
    expect(runner.calls).toEqual([
      'apt-get download python3-requests',
      `dpkg -x ${pkg.debPath} ${path.join(cache, 'pkgs', 'python3-requests.partial')}`,
    ]);
  });

  test('is idempotent: a second fetch runs nothing', async () => {
    const runner = new FakeRunner({ 'python3-requests': REQUESTS });
    const first = await fetchDebianPackage('python3-requests', { cacheDir: cache, runner });
    runner.calls = [];
    const second = await fetchDebianPackage('python3-requests', { cacheDir: cache, runner });
    expect(runner.calls).toEqual([]);
    expect(second).toEqual(first);
  });

  test('unpacks again when an earlier unpack was interrupted', async () => {
    const runner = new FakeRunner({ 'python3-requests': REQUESTS });
    await fetchDebianPackage('python3-requests', { cacheDir: cache, runner });
    await rm(path.join(cache, 'pkgs', 'python3-requests', '.complete'));
    runner.calls = [];
    await fetchDebianPackage('python3-requests', { cacheDir: cache, runner });
    expect(runner.calls.map((c) => c.split(' ')[0])).toEqual(['dpkg']);
  });

  test('does not mistake a package whose name extends another one for it', async () => {
    const runner = new FakeRunner({ 'python3-h2': { version: '4.1.0-1', tree: { [`${DIST}/h2/__init__.py`]: '' } } });
    await mkdir(path.join(cache, 'debs'), { recursive: true });
    await writeFile(path.join(cache, 'debs', 'python3-h2o_1.0_all.deb'), '');
    const pkg = await fetchDebianPackage('python3-h2', { cacheDir: cache, runner });
    expect(path.basename(pkg.debPath)).toBe('python3-h2_4.1.0-1_all.deb');
    expect(runner.calls[0]).toBe('apt-get download python3-h2');
  });

  test('a missing package is a not-found error that names it', async () => {
    const runner = new FakeRunner({});
    const error = await fetchDebianPackage('python3-nope', { cacheDir: cache, runner }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DebianPackageError);
    expect((error as DebianPackageError).kind).toBe('not-found');
    expect((error as Error).message).toMatch(/python3-nope.*apt-get update/);
  });

  test('no apt-get is an apt-unavailable error', async () => {
    const runner = new FakeRunner({ 'python3-requests': REQUESTS }, ['apt-get']);
    const error = await fetchDebianPackage('python3-requests', { cacheDir: cache, runner }).catch((e: unknown) => e);
    expect((error as DebianPackageError).kind).toBe('apt-unavailable');
    expect((error as Error).message).toMatch(/cannot run apt-get/);
  });

  test('no dpkg is a dpkg-unavailable error and leaves no partial tree', async () => {
    const runner = new FakeRunner({ 'python3-requests': REQUESTS }, ['dpkg']);
    const error = await fetchDebianPackage('python3-requests', { cacheDir: cache, runner }).catch((e: unknown) => e);
    expect((error as DebianPackageError).kind).toBe('dpkg-unavailable');
    expect(await readdir(path.join(cache, 'pkgs'))).toEqual([]);
  });

  test('rejects names that are not package names', async () => {
    await expect(fetchDebianPackage('../etc', { cacheDir: cache, runner: new FakeRunner({}) })).rejects.toThrow(RangeError);
  });
});

describe('fetchCodePackage', () => {
  test('follows a dependency package to the package that holds the code', async () => {
    const runner = new FakeRunner({
      'python3-h5py': { version: '3.7.0-8', tree: { 'usr/share/doc/python3-h5py/copyright': '' }, depends: 'python3-h5py-serial | python3-h5py-mpi' },
      'python3-h5py-serial': { version: '3.7.0-8', tree: { [`${DIST}/h5py/__init__.py`]: '' } },
    });
    const pkg = await fetchCodePackage('python3-h5py', { cacheDir: cache, runner });
    expect(pkg.name).toBe('python3-h5py');
    expect(pkg.providedBy).toBe('python3-h5py-serial');
    expect(pkg.version).toBe('python3-h5py-serial=3.7.0-8');
    expect(pkg.moduleRoots).toEqual([path.join(cache, 'pkgs', 'python3-h5py-serial', DIST, 'h5py')]);
  });

  test('returns a package with modules as it is', async () => {
    const runner = new FakeRunner({ 'python3-requests': REQUESTS });
    const pkg = await fetchCodePackage('python3-requests', { cacheDir: cache, runner });
    expect(pkg.providedBy).toBeUndefined();
    expect(runner.calls.some((c) => c.startsWith('dpkg-deb'))).toBe(false);
  });
});

test('dependencyAlternatives drops versions and qualifiers', () => {
  expect(dependencyAlternatives('python3 (>= 3.11~), python3-a:any | python3-b (= 1), libc6')).toEqual(['python3', 'python3-a', 'python3-b', 'libc6']);
});

test('parsePackageList drops comments and blank lines', () => {
  expect(parsePackageList('# header\npython3-a\n\n  python3-b  # why\n#python3-c\n')).toEqual(['python3-a', 'python3-b']);
});

test('defaultCacheDir honours REPOSHAPLEY_CACHE', () => {
  expect(defaultCacheDir({ REPOSHAPLEY_CACHE: '/x/y' })).toBe('/x/y');
  expect(defaultCacheDir({})).toBe(path.join(os.homedir(), '.cache', 'reposhapley'));
});
