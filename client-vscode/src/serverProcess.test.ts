import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { describeExit, locateServer } from './serverProcess.js';

const root = mkdtempSync(path.join(os.tmpdir(), 'reposhapley-locate-'));
const MAIN = path.join('dist', 'server', 'src', 'main.js');
/** A folder holding a server package (dist/server/src/main.js). */
function serverPackage(name: string): string {
  const dir = path.join(root, name);
  mkdirSync(path.join(dir, path.dirname(MAIN)), { recursive: true });
  writeFileSync(path.join(dir, MAIN), '');
  return dir;
}
const extension = path.join(root, 'extension');
serverPackage(path.join('extension', 'server'));
const clone = serverPackage('clone');

afterAll(() => rmSync(root, { recursive: true, force: true }));

test.each([
  ['the bundled server without a setting', '', path.join(extension, 'server', MAIN)],
  ['a package folder from the setting', clone, path.join(clone, MAIN)],
  ['a main.js from the setting', path.join(clone, MAIN), path.join(clone, MAIN)],
])('%s', (_name, setting, main) => {
  expect(locateServer(extension, setting)).toEqual({ kind: 'ok', main });
});

test('a setting that points nowhere says how to fix it, without falling back silently', () => {
  const located = locateServer(extension, path.join(root, 'nowhere'));
  expect(located.kind).toBe('missing');
  expect(located.kind === 'missing' && located.message).toContain('reposhapley.serverPath');
});

test('an extension without a bundled server says how to get one', () => {
  const located = locateServer(path.join(root, 'empty'), '');
  expect(located.kind === 'missing' && located.message).toContain('npm run package');
});

test.each([
  [{ code: 1, signal: null }, 'exit code 1'],
  [{ code: null, signal: 'SIGKILL' as const }, 'killed by SIGKILL'],
  [undefined, 'the connection closed'],
])('describeExit(%j)', (exit, text) => {
  expect(describeExit(exit)).toBe(text);
});
