import { expect, test, vi } from 'vitest';
import { languageOfPath } from '../languages/registry.js';
import { createMemoryLogger } from '../util/logger.js';
import { IndexStore } from './indexStore.js';
import type { FileIndex } from './types.js';

function fileIndex(relPath: string): FileIndex {
  return {
    relPath, absPath: `/ws/${relPath}`, text: '', lines: [''], version: 1, fromBuffer: false,
    windows: [], structural: [], definitions: [], imports: [], references: new Map(), hasSyntaxErrors: false,
  };
}

test('the file-set version moves when a new file is published, not while it is staged', () => {
  const store = new IndexStore();
  const published: number[] = [];
  store.onDidChange(() => published.push(store.fileSetVersion));
  const before = store.fileSetVersion;
  store.put(fileIndex('a.py'));
  // A reader between staging and publishing (a completion while a pass awaits its next read)
  // must not take a version whose retrieval postings are not there yet.
  expect(store.fileSetVersion).toBe(before);
  store.commit();
  expect(store.fileSetVersion).toBeGreaterThan(before);
  expect(published).toEqual([store.fileSetVersion]);
  const afterAdd = store.fileSetVersion;
  store.put({ ...fileIndex('a.py'), version: 2 });
  store.commit();
  expect(store.fileSetVersion).toBe(afterAdd); // a change to a file is no change to the set
  store.remove('a.py');
  store.commit();
  expect(store.fileSetVersion).toBeGreaterThan(afterAdd);
});

test('a bulk load publishes its files unresolved and resolves each import once, at the end', () => {
  const store = new IndexStore();
  const importer = (): FileIndex => ({ ...fileIndex('app.py'), imports: [{ module: 'util', names: [], line: 0 }] });
  const app = importer();
  store.put(app);
  store.commit(false); // a batch of the pass: the file is published, its import not yet resolved
  expect(app.imports[0]!.resolvedPath).toBeUndefined();
  store.put(fileIndex('util.py'));
  store.commit(false);
  const duringPass = store.fileSetVersion;
  store.commit(); // the end of the pass: no staged file, but imports resolve against the whole set
  expect(app.imports[0]!.resolvedPath).toBe('util.py');
  // Retrieval kept for the pass's file-set version found nothing through this import: not reusable now.
  expect(store.fileSetVersion).toBeGreaterThan(duringPass);
  const settled = store.fileSetVersion;
  store.commit();
  expect(store.fileSetVersion).toBe(settled);
});

test('a file put and committed alone has its imports resolved, itself counting as indexed', () => {
  const store = new IndexStore();
  store.put(fileIndex('util.py'));
  store.commit();
  const app: FileIndex = { ...fileIndex('pkg/app.py'), imports: [{ module: 'util', names: [], line: 0 }, { module: 'pkg.app', names: [], line: 1 }] };
  store.put(app);
  store.commit();
  expect(app.imports.map((record) => record.resolvedPath)).toEqual(['util.py', 'pkg/app.py']);
});

test('an import whose resolution throws is left unresolved, said once, and the others resolve', () => {
  const logger = createMemoryLogger();
  const store = new IndexStore(logger);
  const imports = languageOfPath('x.py')!.imports;
  const original = imports.resolve;
  vi.spyOn(imports, 'resolve').mockImplementation((record, file, files) => {
    if (record.module === 'broken') throw new RangeError('Maximum call stack size exceeded');
    return original(record, file, files);
  });
  try {
    store.put(fileIndex('util.py'));
    const app: FileIndex = { ...fileIndex('app.py'), imports: [{ module: 'broken', names: [{ name: 'x' }], line: 0 }, { module: 'util', names: [], line: 1 }] };
    const other: FileIndex = { ...fileIndex('other.py'), imports: [{ module: 'broken', names: [], line: 0 }] };
    store.put(app);
    store.put(other);
    store.commit();
    expect(app.imports.map((record) => record.resolvedPath)).toEqual([undefined, 'util.py']);
    expect(logger.lines.filter((line) => line.includes('left unresolved'))).toHaveLength(1);
  } finally {
    vi.restoreAllMocks();
  }
});
