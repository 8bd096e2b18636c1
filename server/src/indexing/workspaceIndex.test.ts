import { mkdir, mkdtemp, rm, symlink, unlink, writeFile } from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test, vi } from 'vitest';
import { nodeDiscoveryFs } from '../workspace/discoveryFs.js';
import { buildFileIndex } from './fileIndexer.js';
import { createParserForPath, languageOfPath } from '../languages/registry.js';
import { createMemoryLogger } from '../util/logger.js';
import { IndexStore } from './indexStore.js';
import type { SyntaxParser } from '../languages/syntaxTree.js';
import type { DocumentEdit } from './textEdits.js';
import type { FileChange, FileIndex } from './types.js';
import { WorkspaceIndex } from './workspaceIndex.js';

let tmp: string;
let parser: SyntaxParser;
beforeAll(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'rs-index-'));
  parser = await createParserForPath('module.py');
});
afterAll(async () => {
  parser.dispose();
  await rm(tmp, { recursive: true, force: true });
});

let root: string;
let index: WorkspaceIndex;
let workspaceCount = 0;
beforeEach(async () => {
  root = path.join(tmp, `ws${++workspaceCount}`);
  await mkdir(root, { recursive: true });
  index = await WorkspaceIndex.create();
});
afterEach(() => index.dispose());

async function put(relPath: string, content: string): Promise<string> {
  const file = path.join(root, relPath);
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, content);
  return file;
}

const at = (line: number, character: number) => ({ line, character });
const range = (sl: number, sc: number, el: number, ec: number) => ({ start: at(sl, sc), end: at(el, ec) });

/** Everything retrieval can see, as text: chunk texts, definitions, references. */
function visibleText(view: WorkspaceIndex): string[] {
  const seen: string[] = [];
  for (const file of view.files()) {
    for (const chunk of [...file.windows, ...file.structural]) seen.push(view.chunkText(chunk));
    for (const d of file.definitions) seen.push(d.name, d.signature, d.docstring ?? '', view.chunkText(d));
    for (const [name, lines] of file.references) {
      seen.push(name);
      for (const line of lines) seen.push(file.lines[line] ?? '');
    }
  }
  return seen;
}

const CANARY = 'CANARY_TOKEN_12345 = 1';
const CANARY_FILE = ['import os', '', 'def before():', '    return os.sep', '', CANARY, '', 'def after():', '    return CANARY_TOKEN_12345', ''].join('\n');

describe('an open buffer replaces its disk content', () => {
  test('a line deleted in the buffer is invisible; edited back it appears; closing restores the disk', async () => {
    const file = await put('canary.py', CANARY_FILE);
    await index.indexRoots([root]);
    expect(visibleText(index).some((t) => t.includes('CANARY_TOKEN_12345'))).toBe(true);

    const buffer = CANARY_FILE.replace(`${CANARY}\n`, '').replace('return CANARY_TOKEN_12345', 'return 0');
    expect(index.openDocument(file, buffer)).toEqual({ kind: 'indexed', relPath: 'canary.py' });
    expect(visibleText(index).filter((t) => t.includes('CANARY_TOKEN_12345'))).toEqual([]);
    expect(index.referencesTo('CANARY_TOKEN_12345')).toEqual([]);
    expect(index.file('canary.py')?.fromBuffer).toBe(true);

    // A watcher event for the file while it is open must not bring the disk content back.
    await writeFile(file, `${CANARY_FILE}\nANOTHER = CANARY_TOKEN_12345\n`);
    expect(await index.upsertFromDisk(file)).toEqual({ kind: 'buffer-open' });
    expect(visibleText(index).filter((t) => t.includes('CANARY_TOKEN_12345'))).toEqual([]);

    index.applyDocumentEdits(file, [{ range: range(4, 0, 4, 0), text: `${CANARY}\n` }]);
    expect(index.file('canary.py')!.lines[4]).toBe(CANARY);
    expect(index.referencesTo('CANARY_TOKEN_12345')).toEqual([{ relPath: 'canary.py', line: 4 }]);
    expect(index.file('canary.py')!.windows.some((w) => index.chunkText(w).includes(CANARY))).toBe(true);

    expect(await index.closeDocument(file)).toEqual({ kind: 'indexed', relPath: 'canary.py' });
    const restored = index.file('canary.py')!;
    expect(restored.fromBuffer).toBe(false);
    expect(restored.text).toBe(`${CANARY_FILE}\nANOTHER = CANARY_TOKEN_12345\n`);
    expect(index.referencesTo('CANARY_TOKEN_12345').map((r) => r.line)).toEqual([5, 8, 10]);
  });

  test('closing a buffer whose file is not on disk drops it', async () => {
    await index.indexRoots([root]);
    const unsaved = path.join(root, 'new_module.py');
    // The workspace has no Python file, so the first one's grammar loads now; the buffer waits for it.
    const indexed = new Promise<void>((resolve) => index.onDidChange(() => index.definitionsNamed('fresh').length > 0 && resolve()));
    expect(index.openDocument(unsaved, 'def fresh():\n    pass\n')).toEqual({ kind: 'pending' });
    await indexed;
    expect(index.definitionsNamed('fresh')).toHaveLength(1);
    expect(index.openDocument(path.join(root, 'second.py'), 'x = 1\n')).toEqual({ kind: 'indexed', relPath: 'second.py' });
    expect(await index.closeDocument(unsaved)).toMatchObject({ kind: 'skipped', reason: 'unreadable' });
    expect(index.file('new_module.py')).toBeUndefined();
    expect(index.definitionsNamed('fresh')).toEqual([]);
  });

  test('documents outside the roots, or vendored, are held but not indexed', async () => {
    await put('vendor/lib.py', 'def vendored():\n    pass\n');
    await index.indexRoots([root]);
    const elsewhere = path.join(tmp, 'scratch.py');
    expect(index.openDocument(elsewhere, 'def outside():\n    pass\n')).toMatchObject({ kind: 'held', reason: 'outside-workspace' });
    expect(index.openDocument(path.join(root, 'vendor/lib.py'), 'def vendored():\n    pass\n')).toMatchObject({ kind: 'held', reason: 'vendored-or-generated-directory' });
    expect(index.applyDocumentEdits(elsewhere, [{ range: range(0, 4, 0, 11), text: 'moved' }])).toMatchObject({ kind: 'held' });
    expect(index.openDocumentText(elsewhere)).toEqual({ text: 'def moved():\n    pass\n' });
    expect([...index.files()]).toEqual([]);
    expect(index.applyDocumentEdits(path.join(root, 'never-opened.py'), [])).toEqual({ kind: 'not-open' });
  });

  test('a buffer that turns minified is withdrawn, and its disk content with it', async () => {
    const file = await put('m.py', 'x = 1\n');
    await index.indexRoots([root]);
    index.openDocument(file, 'x = 1\n');
    expect(index.applyDocumentEdits(file, [{ range: range(1, 0, 1, 0), text: `y = "${'z'.repeat(400)}"\n` }])).toMatchObject({ kind: 'held', reason: 'minified' });
    expect(index.file('m.py')).toBeUndefined();
    expect(index.applyDocumentEdits(file, [{ range: range(1, 0, 2, 0), text: '' }])).toEqual({ kind: 'indexed', relPath: 'm.py' });
  });

  test('a document opened before the roots are known is indexed once they are', async () => {
    const file = await put('early.py', 'def disk():\n    pass\n');
    expect(index.openDocument(file, 'def buffer():\n    pass\n')).toMatchObject({ kind: 'held', reason: 'outside-workspace' });
    await index.indexRoots([root]);
    expect(index.definitionsNamed('buffer')).toHaveLength(1);
    expect(index.definitionsNamed('disk')).toEqual([]);
  });

  test('an open document wins over a disk read that was already in flight', async () => {
    const file = await put('race.py', 'def disk():\n    pass\n');
    await index.indexRoots([root]);
    const pending = index.upsertFromDisk(file);
    index.openDocument(file, 'def buffer():\n    pass\n');
    expect((await pending).kind).toMatch(/^(buffer-open|superseded)$/);
    expect(index.definitionsNamed('disk')).toEqual([]);
    expect(index.definitionsNamed('buffer')).toHaveLength(1);
  });
});

describe('incremental updates', () => {
  const comparable = (file: FileIndex) => ({
    lines: file.lines, windows: file.windows, structural: file.structural, definitions: file.definitions,
    references: file.references, hasSyntaxErrors: file.hasSyntaxErrors,
    imports: file.imports.map(({ module, names, alias, line }) => ({ module, names: names.map(({ name, alias: a }) => ({ name, alias: a })), alias, line })),
  });

  test('several small edits give exactly the index of the final text built from scratch', async () => {
    const source = ['import os', '', 'class Shape:', '    """A shape."""', '    def area(self):', '        return 0', '',
      'def main():', '    s = Shape()', '    return s.area()', ''].join('\n');
    const file = await put('shapes.py', source);
    await index.indexRoots([root]);
    index.openDocument(file, source);
    const edits: DocumentEdit[][] = [
      [{ range: range(0, 9, 0, 9), text: ', sys' }], // import os, sys
      [{ range: range(5, 15, 5, 16), text: 'self.w * self.h' }],
      [{ range: range(6, 0, 6, 0), text: '    def grow(self, k):\n        self.w *= k\n\n' }, { range: range(3, 7, 3, 12), text: 'Any' }],
      [{ range: range(10, 0, 13, 0), text: '' }], // delete `def main():` and its first two lines
      [{ range: range(0, 0, 0, 0), text: '# header\r\n' }, { range: range(99, 0, 99, 0), text: 'def tail(:\n    pass\n' }],
      [{ range: range(3, 6, 3, 6), text: 'ünï' }],
    ];
    for (const batch of edits) expect(index.applyDocumentEdits(file, batch)).toMatchObject({ kind: 'indexed' });
    const final = index.openDocumentText(file)!.text;
    const tree = parser.parse(final);
    const scratch = buildFileIndex({ relPath: 'shapes.py', absPath: file, text: final, version: 1, fromBuffer: true }, tree);
    tree.delete();
    expect(comparable(index.file('shapes.py')!)).toEqual(comparable(scratch));
    expect(scratch.definitions.map((d) => d.qualifiedName)).toEqual(['ünïShape', 'ünïShape.area', 'ünïShape.grow', 'tail']);
  });

  test('name tables follow edits: renamed definitions and references move', async () => {
    const file = await put('a.py', 'def old_name():\n    pass\n\nold_name()\n');
    await put('b.py', 'from a import old_name\nold_name()\n');
    await index.indexRoots([root]);
    expect(index.definitionsNamed('old_name').map((d) => d.relPath)).toEqual(['a.py']);
    expect(index.referencesTo('old_name')).toEqual([{ relPath: 'a.py', line: 3 }, { relPath: 'b.py', line: 0 }, { relPath: 'b.py', line: 1 }]);
    index.openDocument(file, 'def old_name():\n    pass\n\nold_name()\n');
    index.applyDocumentEdits(file, [{ range: range(0, 4, 0, 12), text: 'new_name' }, { range: range(3, 0, 3, 8), text: 'new_name' }]);
    expect(index.definitionsNamed('old_name')).toEqual([]);
    expect(index.definitionsNamed('new_name').map((d) => d.signature)).toEqual(['def new_name():']);
    expect(index.referencesTo('old_name').map((r) => r.relPath)).toEqual(['b.py', 'b.py']);
    expect(index.stats()).toMatchObject({ files: 2, openDocuments: 1, definitions: 1 });
  });

  test('stats count files by language', async () => {
    await put('a.py', 'x = 1\n');
    await put('web/b.ts', 'export const b = 1;\n');
    await put('web/c.ts', 'export const c = 2;\n');
    await put('cmd/d.go', 'package main\n');
    await put('notes.txt', 'not source\n');
    await index.indexRoots([root]);
    expect(index.stats()).toMatchObject({ files: 4, filesByLanguage: { python: 1, typescript: 2, go: 1 } });
    expect(Object.keys(index.stats().filesByLanguage)).toHaveLength(3);
  });

  test('listeners get before/after for each change and the version moves', async () => {
    const file = await put('a.py', 'x = 1\n');
    const batches: FileChange[][] = [];
    index.onDidChange((changes) => batches.push(changes));
    const v0 = index.version;
    await index.indexRoots([root]);
    expect(batches.flat().map((c) => [c.relPath, c.before === undefined, c.after?.fromBuffer])).toEqual([['a.py', true, false]]);
    index.openDocument(file, 'x = 2\n');
    const last = batches.at(-1)![0]!;
    expect(last.before?.text).toBe('x = 1\n');
    expect(last.after?.text).toBe('x = 2\n');
    expect(last.after!.version).toBe(last.before!.version + 1);
    expect(index.version).toBeGreaterThan(v0 + 1);
    await unlink(file);
    await index.closeDocument(file);
    expect(batches.at(-1)!.map((c) => [c.relPath, c.before?.fromBuffer, c.after])).toEqual([['a.py', true, undefined]]);
  });
});

describe('disk updates and whole-workspace indexing', () => {
  test('a workspace with no Python gives zero files and no error', async () => {
    await put('README.md', '# nothing here\n');
    const result = await index.indexRoots([root]);
    expect(result).toMatchObject({ kind: 'ok', files: 0 });
    expect(index.stats()).toMatchObject({ files: 0, windows: 0, definitions: 0 });
  });

  test('watcher events: new, changed, ignored and deleted files', async () => {
    await put('.gitignore', 'generated.py\n');
    await index.indexRoots([root]);
    const fileSets = [index.fileSetVersion];
    const added = await put('added.py', 'def added():\n    pass\n');
    expect(await index.upsertFromDisk(added)).toEqual({ kind: 'indexed', relPath: 'added.py' });
    fileSets.push(index.fileSetVersion);
    const ignored = await put('generated.py', 'x = 1\n');
    expect(await index.upsertFromDisk(ignored)).toMatchObject({ kind: 'skipped', reason: 'ignored-by-gitignore' });
    await writeFile(added, 'def renamed():\n    pass\n');
    await index.upsertFromDisk(added);
    fileSets.push(index.fileSetVersion);
    expect(index.definitionsNamed('added')).toEqual([]);
    expect(index.definitionsNamed('renamed')).toHaveLength(1);
    expect(index.remove(added)).toEqual({ kind: 'removed' });
    fileSets.push(index.fileSetVersion);
    expect(index.file('added.py')).toBeUndefined();
    expect(index.remove(added)).toEqual({ kind: 'not-indexed' });
    // The file set moves when a file comes or goes, not when one changes or is ignored.
    expect(fileSets[1]).toBeGreaterThan(fileSets[0]!);
    expect(fileSets[2]).toBe(fileSets[1]);
    expect(fileSets[3]).toBeGreaterThan(fileSets[2]!);
  });

  test('a symlink loop inside the workspace: watcher events through it do not index the same file again', async () => {
    await put('pkg/shapes.py', 'class Polygon:\n    pass\n');
    await symlink('.', path.join(root, 'loop'));
    await index.indexRoots([root]);
    expect([...index.files()].map((f) => f.relPath)).toEqual(['pkg/shapes.py']);
    for (const via of ['loop/pkg/shapes.py', 'loop/loop/loop/pkg/shapes.py']) {
      expect(await index.upsertFromDisk(path.join(root, via))).toEqual({ kind: 'skipped', reason: 'symlink-loop', detail: 'same file as pkg/shapes.py' });
    }
    expect([...index.files()].map((f) => f.relPath)).toEqual(['pkg/shapes.py']);
    expect(index.definitionsNamed('Polygon')).toHaveLength(1);
    // The file itself still updates, and once it is gone an alias may take its place.
    expect(await index.upsertFromDisk(path.join(root, 'pkg/shapes.py'))).toEqual({ kind: 'indexed', relPath: 'pkg/shapes.py' });
    index.remove(path.join(root, 'pkg/shapes.py'));
    expect(await index.upsertFromDisk(path.join(root, 'loop/pkg/shapes.py'))).toEqual({ kind: 'indexed', relPath: 'loop/pkg/shapes.py' });
  });

  test('imports re-resolved incrementally as files come and go equal a fresh index of the same tree', async () => {
    // Modules that import each other by name, as packages and plain modules, absolute and relative.
    const names = ['alpha', 'beta', 'gamma', 'delta', 'util'];
    const source = (i: number) => [
      `import ${names[i % 5]}`, `from pkg import ${names[(i + 1) % 5]}`, `from .${names[(i + 2) % 5]} import thing`,
      `from pkg.sub import ${names[(i + 3) % 5]}`, `x = ${i}`, '',
    ].join('\n');
    const paths = (i: number) => [`${names[i % 5]}.py`, `pkg/${names[i % 5]}.py`, `pkg/sub/${names[i % 5]}.py`, `pkg/sub/__init__.py`, `pkg/__init__.py`][Math.floor(i / 5) % 5]!;
    for (let i = 0; i < 12; i++) await put(paths(i * 3), source(i));
    await index.indexRoots([root]);
    const resolutions = (view: WorkspaceIndex) => [...view.files()].sort((a, b) => a.relPath.localeCompare(b.relPath))
      .map((f) => [f.relPath, f.imports.map((r) => [r.module, r.resolvedPath ?? null, r.names.map((n) => n.resolvedPath ?? null)])]);
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
    for (let step = 0; step < 30; step++) {
      const relPath = paths(next() % 25);
      const abs = path.join(root, relPath);
      if (index.file(relPath) && next() % 2 === 0) {
        await unlink(abs);
        index.remove(abs);
      } else {
        await put(relPath, source(next() % 25));
        await index.upsertFromDisk(abs);
      }
      const fresh = await WorkspaceIndex.create();
      await fresh.indexRoots([root]);
      expect(resolutions(index), `after step ${step} (${relPath})`).toEqual(resolutions(fresh));
      fresh.dispose();
    }
  });

  test('the workspace bound stops indexing at a number of files or bytes, and says which', async () => {
    for (let i = 0; i < 6; i++) await put(`m${i}.py`, `x${i} = ${'1'.repeat(100)}\n`);
    const byFiles = await WorkspaceIndex.create({ maxFiles: 4 });
    const files = await byFiles.indexRoots([root]);
    expect(files).toMatchObject({ kind: 'ok', files: 4, bound: { by: 'files', limit: 4, files: 4 } });
    expect([...byFiles.files()]).toHaveLength(4);
    byFiles.dispose();
    const byBytes = await WorkspaceIndex.create({ maxBytes: 250 });
    const bytes = await byBytes.indexRoots([root]);
    expect(bytes).toMatchObject({ kind: 'ok', files: 3, bound: { by: 'bytes', limit: 250, files: 3 } });
    byBytes.dispose();
    expect((await index.indexRoots([root])).bound).toBeUndefined();
    expect([...index.files()]).toHaveLength(6);
  });

  test('a file deleted during indexing is skipped, not thrown', async () => {
    await put('stays.py', 'x = 1\n');
    const goes = await put('goes.py', 'y = 1\n');
    const progress: number[] = [];
    const deleting = await WorkspaceIndex.create({
      fs: { ...nodeDiscoveryFs, stat: async (p) => (p === goes && (await unlink(p).catch(() => undefined)), nodeDiscoveryFs.stat(p)) },
      yieldEvery: 1,
    });
    const result = await deleting.indexRoots([root], { onProgress: (p) => progress.push(p.filesDone) });
    expect(result).toMatchObject({ kind: 'ok', files: 1 });
    expect(result.skipped).toEqual([expect.objectContaining({ relPath: 'goes.py', reason: 'unreadable' })]);
    expect([...deleting.files()].map((f) => f.relPath)).toEqual(['stays.py']);
    expect(progress).toEqual([1, 2]);
    deleting.dispose();
  });

  test('a file whose symbols cannot be read is indexed as text only, said once, and the files after it as usual', async () => {
    await put('src/a_broken.rs', 'use crate::b::helper;\n\npub fn broken_marker() {}\n');
    await put('src/b.rs', 'pub fn helper() {}\n');
    const rules = languageOfPath('src/a_broken.rs')!.symbols;
    const original = rules.importRecords;
    vi.spyOn(rules, 'importRecords').mockImplementation((node, text) => {
      if (text.includes('broken_marker')) throw new RangeError('Maximum call stack size exceeded');
      return original(node, text);
    });
    const logger = createMemoryLogger();
    const logged = await WorkspaceIndex.create({ logger });
    try {
      expect(await logged.indexRoots([root])).toMatchObject({ kind: 'ok', files: 2 });
      const broken = logged.file('src/a_broken.rs')!;
      expect(broken.symbolError).toBe('RangeError: Maximum call stack size exceeded');
      expect(broken.definitions).toEqual([]);
      expect(broken.windows.map((w) => logged.chunkText(w)).join('\n')).toContain('broken_marker');
      expect(logged.definitionsNamed('helper')).toHaveLength(1);
      // An open buffer fails at every edit; the log says it once.
      const abs = path.join(root, 'src/a_broken.rs');
      logged.openDocument(abs, 'use crate::b::helper;\n\npub fn broken_marker() {}\n');
      logged.applyDocumentEdits(abs, [{ range: range(2, 0, 2, 0), text: '// edited\n' }]);
      expect(logger.lines.filter((line) => line.includes('indexed as text only'))).toHaveLength(1);
    } finally {
      vi.restoreAllMocks();
      logged.dispose();
    }
  });

  test('a file created in a folder just added is indexed, though its watcher event comes while that pass is starting', async () => {
    await put('a/old.py', 'def old():\n    pass\n');
    await index.indexRoots([path.join(root, 'a')]);
    const created = await put('b/fresh.py', 'def fresh():\n    pass\n');
    // The folder is added, and the watcher reports the new file before the pass has resolved its roots.
    const pass = index.indexRoots([path.join(root, 'a'), path.join(root, 'b')]);
    const upsert = await index.upsertFromDisk(created);
    await pass;
    expect(upsert).toEqual({ kind: 'indexed', relPath: 'fresh.py' });
    expect(index.definitionsNamed('fresh')).toHaveLength(1);
  });

  test('a watcher event judged while the roots change is judged again, not applied stale', async () => {
    await put('a/old.py', 'def old():\n    pass\n');
    const created = await put('b/fresh.py', 'def fresh():\n    pass\n');
    let release!: () => void;
    const gate = new Promise<void>((resolve) => { release = resolve; });
    const gated = await WorkspaceIndex.create({
      fs: { ...nodeDiscoveryFs, realpath: async (p) => (p === created && (await gate), nodeDiscoveryFs.realpath(p)) },
    });
    try {
      await gated.indexRoots([path.join(root, 'a')]);
      const upsert = gated.upsertFromDisk(created); // judged against the roots without b, held at the gate
      await new Promise((resolve) => setTimeout(resolve, 20));
      await gated.indexRoots([path.join(root, 'a'), path.join(root, 'b')]); // indexes fresh.py
      release();
      expect(await upsert).toEqual({ kind: 'indexed', relPath: 'fresh.py' });
      expect(gated.definitionsNamed('fresh')).toHaveLength(1);
    } finally {
      gated.dispose();
    }
  });

  test('a file the server fails on is skipped as index-failed, and the files after it are indexed', async () => {
    await put('a_fails.py', 'def fails():\n    pass\n');
    await put('b_after.py', 'def after():\n    pass\n');
    const originalPut = IndexStore.prototype.put;
    vi.spyOn(IndexStore.prototype, 'put').mockImplementation(function (this: IndexStore, file: FileIndex) {
      if (file.relPath === 'a_fails.py') throw new Error('injected');
      return originalPut.call(this, file);
    });
    try {
      const result = await index.indexRoots([root]);
      expect(result).toMatchObject({ kind: 'ok', files: 1 });
      expect(result.skipped).toEqual([expect.objectContaining({ relPath: 'a_fails.py', reason: 'index-failed', detail: expect.stringContaining('Error: injected') })]);
      expect(index.definitionsNamed('after')).toHaveLength(1);
      expect(await index.upsertFromDisk(path.join(root, 'a_fails.py'))).toMatchObject({ kind: 'skipped', reason: 'index-failed' });
    } finally {
      vi.restoreAllMocks();
    }
  });

  test('watcher events during a re-index are not undone by it (a new file stays, a deleted one stays out)', async () => {
    await put('a_first.py', 'x = 1\n');
    const deleted = await put('b_deleted.py', 'y = 1\n');
    let release!: () => void;
    const gate = new Promise<void>((resolve) => { release = resolve; });
    let waiting = false;
    const slow = await WorkspaceIndex.create({
      fs: {
        ...nodeDiscoveryFs,
        readFile: async (p) => {
          const bytes = await nodeDiscoveryFs.readFile(p);
          if (p.endsWith('b_deleted.py') && !waiting) {
            waiting = true;
            await gate; // The pass holds b_deleted.py as read before the events below.
          }
          return bytes;
        },
      },
    });
    const pass = slow.indexRoots([root]);
    while (!waiting) await new Promise((resolve) => setImmediate(resolve));
    const added = await put('added.py', 'def added():\n    pass\n');
    expect(await slow.upsertFromDisk(added)).toEqual({ kind: 'indexed', relPath: 'added.py' });
    await unlink(deleted);
    slow.remove(deleted);
    release();
    expect(await pass).toMatchObject({ kind: 'ok' });
    expect([...slow.files()].map((f) => f.relPath).sort()).toEqual(['a_first.py', 'added.py']);
    slow.dispose();
  });

  test('re-indexing drops files that are gone; an aborted run says so', async () => {
    const gone = await put('gone.py', 'x = 1\n');
    await put('kept.py', 'y = 1\n');
    await index.indexRoots([root]);
    await unlink(gone);
    await index.indexRoots([root]);
    expect([...index.files()].map((f) => f.relPath)).toEqual(['kept.py']);
    const controller = new AbortController();
    controller.abort();
    expect(await index.indexRoots([root], { signal: controller.signal })).toMatchObject({ kind: 'cancelled' });
  });

  test('CRLF files: lines carry no carriage return, text keeps it', async () => {
    await put('crlf.py', 'def f():\r\n    return 1\r\n');
    await index.indexRoots([root]);
    const file = index.file('crlf.py')!;
    expect(file.lines).toEqual(['def f():', '    return 1', '']);
    expect(file.text).toContain('\r\n');
    expect(index.chunkText(file.structural[0]!)).toBe('def f():\n    return 1');
  });
});

describe('deferred buffer indexing (bufferIndexDelayMs)', () => {
  let lazy: WorkspaceIndex;
  beforeEach(async () => {
    lazy = await WorkspaceIndex.create({ bufferIndexDelayMs: 40 });
  });
  afterEach(() => lazy.dispose());

  test('edits reach the index within the delay, and continuous edits cannot postpone it', async () => {
    const file = await put('typed.py', 'a = 1\n');
    await lazy.indexRoots([root]);
    lazy.openDocument(file, 'a = 1\n');
    const started = Date.now();
    let typed = 'a = 1\n';
    // Keep typing faster than the delay for three delays: the index must still follow.
    while (Date.now() - started < 120) {
      typed += 'x';
      expect(lazy.applyDocumentEdits(file, [{ text: typed }])).toEqual({ kind: 'deferred' });
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const indexedText = lazy.file('typed.py')!.text;
    expect(indexedText).not.toBe('a = 1\n');
    expect(typed.startsWith(indexedText)).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 80));
    expect(lazy.file('typed.py')!.text).toBe(typed);
  });

  test('a flush indexes every deferred buffer but the one excepted', async () => {
    const one = await put('one.py', 'ONE = 1\n');
    const two = await put('two.py', 'TWO = 2\n');
    await lazy.indexRoots([root]);
    lazy.openDocument(one, 'ONE = 1\n');
    lazy.openDocument(two, 'TWO = 2\n');
    lazy.applyDocumentEdits(one, [{ text: 'ONE_EDITED = 1\n' }]);
    lazy.applyDocumentEdits(two, [{ text: 'TWO_EDITED = 2\n' }]);
    lazy.flushBufferEdits(one);
    expect(lazy.file('two.py')!.text).toBe('TWO_EDITED = 2\n');
    expect(lazy.file('one.py')!.text).toBe('ONE = 1\n');
    lazy.flushBufferEdits();
    expect(lazy.file('one.py')!.text).toBe('ONE_EDITED = 1\n');
  });

  test('closing a buffer with deferred edits reverts to the disk file, not to the edits', async () => {
    const file = await put('closed.py', 'DISK = 1\n');
    await lazy.indexRoots([root]);
    lazy.openDocument(file, 'DISK = 1\n');
    lazy.applyDocumentEdits(file, [{ text: 'BUFFER = 1\n' }]);
    await lazy.closeDocument(file);
    lazy.flushBufferEdits();
    expect(lazy.file('closed.py')!.text).toBe('DISK = 1\n');
  });
});
