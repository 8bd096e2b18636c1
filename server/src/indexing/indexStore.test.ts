import { expect, test } from 'vitest';
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
