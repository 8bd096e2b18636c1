/** Adapter packs: read and checked, applied by pull to the verified base, and refused when broken. */
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { ADAPTER_PACK_FORMAT, adapterPackManifest, verifiedAdapterPack, type AdapterPack } from './adapterPack.js';
import type { CatalogEntry } from './catalog.js';
import { pullModel } from './pull.js';
import { writeVerifiedMark } from './sidecar.js';

const sha256 = (bytes: string | Buffer) => createHash('sha256').update(bytes).digest('hex');
const BASE_BYTES = 'the verified base';
const ADAPTER_BYTES = 'a LoRA adapter';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'adapter-pack-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function writePack(packsDir: string, name: string, patch: Partial<AdapterPack> = {}, adapterBytes = ADAPTER_BYTES): AdapterPack {
  const pack: AdapterPack = {
    format: ADAPTER_PACK_FORMAT, base: { model: name, sha256: sha256(BASE_BYTES), sizeBytes: BASE_BYTES.length },
    adapter: { file: 'adapter.gguf', sha256: sha256(ADAPTER_BYTES) }, ...patch,
  };
  mkdirSync(path.join(packsDir, name), { recursive: true });
  writeFileSync(path.join(packsDir, name, 'adapter.json'), JSON.stringify(pack));
  writeFileSync(path.join(packsDir, name, 'adapter.gguf'), adapterBytes);
  return pack;
}

describe('reading a pack', () => {
  test('a sound pack is read and its adapter hash-checked; a missing one is undefined', () => {
    const pack = writePack(dir, 'tiny');
    expect(adapterPackManifest('tiny', dir)).toEqual(pack);
    expect(verifiedAdapterPack('tiny', dir)).toEqual({ pack, adapterPath: path.join(dir, 'tiny', 'adapter.gguf') });
    expect(adapterPackManifest('other', dir)).toBeUndefined();
    expect(verifiedAdapterPack('other', dir)).toBeUndefined();
  });

  test.each([
    ['another format', { format: 'reposhapley-control-pack/1' as typeof ADAPTER_PACK_FORMAT }, /format .* expected reposhapley-adapter-pack\/1/],
    ['another model', { base: { model: 'qwen2.5-coder-0.5b', sha256: 'a'.repeat(64), sizeBytes: 1 } }, /base.model "qwen2.5-coder-0.5b" is not the folder's catalog model tiny/],
    ['a file outside the folder', { adapter: { file: '../adapter.gguf', sha256: 'a'.repeat(64) } }, /adapter needs a file name in the pack folder/],
  ])('a pack with %s is refused, naming its file', (_what, patch, message) => {
    writePack(dir, 'tiny', patch);
    expect(() => verifiedAdapterPack('tiny', dir)).toThrow(message);
    expect(() => verifiedAdapterPack('tiny', dir)).toThrow(/tiny[/\\]adapter\.json: /);
    expect(adapterPackManifest('tiny', dir)).toBeUndefined();
  });

  test('an adapter whose bytes changed is refused', () => {
    writePack(dir, 'tiny', {}, 'another adapter');
    expect(() => verifiedAdapterPack('tiny', dir)).toThrow(/adapter\.gguf: its SHA-256 is not the one adapter.json pins/);
  });
});

describe('pull', () => {
  const entry: CatalogEntry = {
    name: 'tiny', fileName: 'tiny.gguf', sizeBytes: BASE_BYTES.length, sha256: sha256(BASE_BYTES), license: 'MIT',
    description: 'tiny', publishedMatch: null, sources: [],
  };

  async function pull(packsDir: string) {
    const cacheDir = path.join(dir, 'cache');
    mkdirSync(cacheDir, { recursive: true });
    writeFileSync(path.join(cacheDir, entry.fileName), BASE_BYTES);
    await writeVerifiedMark(path.join(cacheDir, entry.fileName), entry.sha256);
    return pullModel(entry, { cacheDir, env: {}, controlPacksDir: path.join(dir, 'no-control-packs'), adapterPacksDir: packsDir });
  }

  test('reports the verified adapter beside the cached base', async () => {
    writePack(path.join(dir, 'packs'), 'tiny');
    const outcome = await pull(path.join(dir, 'packs'));
    expect(outcome).toMatchObject({ kind: 'ok', source: 'cache', adapter: { path: path.join(dir, 'packs', 'tiny', 'adapter.gguf') } });
  });

  test('a broken pack, or one trained on another file, fails the pull and says the base is fine', async () => {
    writePack(path.join(dir, 'damaged'), 'tiny', {}, 'another adapter');
    const damaged = await pull(path.join(dir, 'damaged'));
    expect(damaged).toMatchObject({ kind: 'error', code: 'adapter-pack' });
    expect(damaged.kind === 'error' && damaged.message).toMatch(/its SHA-256 is not the one adapter.json pins; the pack is damaged.*; the base model .*tiny\.gguf is fine/);
    writePack(path.join(dir, 'other-base'), 'tiny', { base: { model: 'tiny', sha256: 'f'.repeat(64), sizeBytes: 1 } });
    const otherBase = await pull(path.join(dir, 'other-base'));
    expect(otherBase.kind === 'error' && otherBase.message).toMatch(/trained on a file hashing to f{64}, the catalog pins/);
  });

  test('no pack: the base alone', async () => {
    const outcome = await pull(path.join(dir, 'none'));
    expect(outcome.kind === 'ok' && outcome.adapter).toBeUndefined();
  });
});
