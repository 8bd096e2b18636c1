import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { WorkspaceIndex } from './workspaceIndex.js';

const FIXTURE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../test/fixtures/index-pkg');

describe('WorkspaceIndex resolves imports after indexing', () => {
  let index: WorkspaceIndex;
  beforeAll(async () => {
    index = await WorkspaceIndex.create();
  });
  afterAll(() => index.dispose());

  test('imports of the fixture workspace point at its files', async () => {
    await index.indexRoots([FIXTURE]);
    const app = index.file('app.py')!;
    expect(app.imports.map((i) => i.resolvedPath)).toEqual([
      'src/pkg/util.py', 'src/pkg/__init__.py', 'src/pkg/sub/__init__.py', 'requests/api.py', undefined,
    ]);
    expect(app.imports[2]!.names[0]!.resolvedPath).toBe('src/pkg/sub/deep.py');
    const deep = index.file('src/pkg/sub/deep.py')!;
    expect(deep.imports.map((i) => i.resolvedPath)).toEqual([
      'src/pkg/util.py', 'src/pkg/__init__.py', undefined, 'src/pkg/util.py', 'src/pkg/sub/__init__.py',
    ]);
  });

  test('root that is the package itself', async () => {
    await index.indexRoots([path.join(FIXTURE, 'requests')]);
    expect(index.file('app.py')).toBeUndefined();
    const api = index.file('api.py')!;
    expect(api.imports.map((i) => i.resolvedPath)).toEqual(['utils.py', '__init__.py', 'utils.py', '__init__.py']);
    expect(api.imports[1]!.names[0]!.resolvedPath).toBe('utils.py');
  });
});
