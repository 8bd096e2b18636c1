/** Parser sets load a grammar when the first file of its language comes, not before. */
import { expect, test } from 'vitest';
import { createParserSet } from './registry.js';

test('a set for some files holds only their languages, and loads another when asked', async () => {
  const parsers = await createParserSet(['app/main.py', 'app/util.py']);
  try {
    expect(parsers.forPath('app/main.py')).toBeDefined();
    expect(parsers.forPath('cmd/main.go')).toBeUndefined();
    expect(parsers.forPath('src/lib.rs')).toBeUndefined();
    await parsers.load(['cmd/main.go', 'README.md']);
    const tree = parsers.forPath('cmd/main.go')!.parse('package main\n\nfunc main() {}\n');
    expect(tree.rootNode.type).toBe('source_file');
    tree.delete();
    expect(parsers.forPath('src/lib.rs')).toBeUndefined();
  } finally {
    parsers.dispose();
  }
});

test('a set for no files in particular holds every registered grammar', async () => {
  const parsers = await createParserSet();
  try {
    for (const file of ['a.py', 'b.go', 'c.rs', 'd.js', 'e.ts', 'f.tsx']) expect(parsers.forPath(file), file).toBeDefined();
  } finally {
    parsers.dispose();
  }
});
