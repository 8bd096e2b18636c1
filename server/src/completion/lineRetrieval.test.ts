import { describe, expect, test } from 'vitest';
import type { FileIndex, IndexView } from '../indexing/types.js';
import type { Candidate } from '../retrieval/types.js';
import { linePrefixOf, lineRetrieval, retrievalSources, stillHolds } from './lineRetrieval.js';

/** An index view that knows only file versions and its file-set version, which is all the check reads. */
function indexWithVersions(versions: Record<string, number>, fileSetVersion = 1): IndexView {
  const file = (relPath: string) => (relPath in versions ? { version: versions[relPath] } as FileIndex : undefined);
  return { file, files: () => Object.keys(versions).map((relPath) => file(relPath)!), fileSetVersion } as IndexView;
}

function candidateFrom(relPath: string): Candidate {
  return { chunk: { relPath, startLine: 0, endLine: 3 }, text: 'def f(): ...', sources: ['bm25'], score: 0.1 } as Candidate;
}

describe('candidates kept on a line', () => {
  const candidates = [candidateFrom('pkg/a.py'), candidateFrom('app/main.py')];

  test('the line prefix is the text after the last newline', () => {
    expect(linePrefixOf('import os\n    return ses')).toBe('    return ses');
    expect(linePrefixOf('x = 1')).toBe('x = 1');
    expect(linePrefixOf('x = 1\n')).toBe('');
  });

  test('they hold while the user types on from where they were retrieved, not after backspacing past it', () => {
    const index = indexWithVersions({ 'pkg/a.py': 1, 'app/main.py': 7 });
    const kept = lineRetrieval('    return ', candidates, [], retrievalSources(candidates, index, 'app/main.py'));
    expect(stillHolds(kept, '    return ', index)).toBe(true);
    expect(stillHolds(kept, '    return session.get(', index)).toBe(true);
    expect(stillHolds(kept, '    return', index)).toBe(false);
    expect(stillHolds(kept, '    yield ', index)).toBe(false);
  });

  test('a change to a file they come from retrieves anew; the document\'s own edits do not', () => {
    const kept = lineRetrieval('    return ', candidates, [], retrievalSources(candidates, indexWithVersions({ 'pkg/a.py': 1, 'app/main.py': 7 }), 'app/main.py'));
    expect(stillHolds(kept, '    return x', indexWithVersions({ 'pkg/a.py': 1, 'app/main.py': 8 }))).toBe(true);
    expect(stillHolds(kept, '    return x', indexWithVersions({ 'pkg/a.py': 2, 'app/main.py': 7 }))).toBe(false);
    expect(stillHolds(kept, '    return x', indexWithVersions({ 'app/main.py': 7 }))).toBe(false);
  });

  test('a file that came or went retrieves anew, even when as many files came as went', () => {
    const kept = lineRetrieval('    return ', candidates, [], retrievalSources(candidates, indexWithVersions({ 'pkg/a.py': 1, 'app/main.py': 7 }, 4), 'app/main.py'));
    expect(stillHolds(kept, '    return x', indexWithVersions({ 'pkg/a.py': 1, 'app/main.py': 7 }, 4))).toBe(true);
    expect(stillHolds(kept, '    return x', indexWithVersions({ 'pkg/a.py': 1, 'app/main.py': 7 }, 6))).toBe(false);
  });
});
