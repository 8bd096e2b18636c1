import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import { writeTinyModel, type TinyModel } from '../../test/support/tinyModel.js';
import { GgmlType } from '../../server/src/model/gguf/ggufTypes.js';
import { deriveControlModel } from '../../server/src/modelStore/controlDerive.js';
import { CONTROL_PACK_FORMAT, loadControlPack, sha256 } from '../../server/src/modelStore/controlPack.js';
import { PACK_TOKEN_TEXTS, writePack, writePackVariant, type PackRows } from './packFiles.js';

const WIDTH = 64;

let dir: string;
let tiny: TinyModel;
let packDir: string;

const rowsOf = (scale: number): PackRows => PACK_TOKEN_TEXTS.map((_, i) => [
  Float32Array.from({ length: WIDTH }, (_, k) => Math.sin(i + k)), Float32Array.from({ length: WIDTH }, (_, k) => scale * Math.cos(i * k)),
]);

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'pack-variant-'));
  tiny = await writeTinyModel({
    path: path.join(dir, 'base.gguf'), fimLayout: 'starcoder', controlTokens: false, paddingRows: 30, weightType: GgmlType.Q8_0,
  });
  const base = readFileSync(tiny.path);
  const firstPad = tiny.tokens.findIndex((t) => t.startsWith('[PAD'));
  packDir = path.join(dir, 'committed', 'tiny');
  await writePack(packDir, {
    format: CONTROL_PACK_FORMAT, base: { model: 'tiny', sha256: sha256(base), sizeBytes: base.length }, hidden: WIDTH,
    tokens: PACK_TOKEN_TEXTS.map((text, i) => ({ text, id: firstPad + i })),
    trained: false, needThreshold: 0.5, layout: 'repo-fim', trigger: 'vocabulary', derivedFileName: 'tiny+control.gguf',
    provenance: { rows: 'committed' },
  }, rowsOf(0.01), tiny.path, path.join(dir, 'cache'));
});

describe('a pack variant', () => {
  test('is written beside the committed pack with its own derived model, and leaves the pack as it was', async () => {
    const committed = { manifest: readFileSync(path.join(packDir, 'pack.json')), rows: readFileSync(path.join(packDir, 'rows.f32')) };
    const outDir = path.join(dir, 'variant');
    const { derivedPath, pack } = await writePackVariant(loadControlPack(packDir), outDir, tiny.path, { rows: rowsOf(0.05), needThreshold: 0, trained: true });

    expect(readFileSync(path.join(packDir, 'pack.json'))).toEqual(committed.manifest);
    expect(readFileSync(path.join(packDir, 'rows.f32'))).toEqual(committed.rows);
    expect(path.dirname(derivedPath)).toBe(outDir);
    expect(pack.rows.sha256).not.toBe(sha256(committed.rows));
    expect(pack).toMatchObject({ trained: true, needThreshold: 0, trigger: 'vocabulary', layout: 'repo-fim', provenance: { rows: 'committed' } });

    // The variant is a pack like any other: it loads, and its pin is the model derived from it.
    const loaded = loadControlPack(outDir);
    expect(loaded.rows[0]![1][1]).toBeCloseTo(0.05 * Math.cos(0), 6);
    const again = await deriveControlModel(tiny.path, path.join(dir, 'again.gguf'), loaded);
    expect(again.kind).toBe('ok');
  });

  test('refuses to write over the committed pack', async () => {
    await expect(writePackVariant(loadControlPack(packDir), packDir, tiny.path, { rows: rowsOf(1), needThreshold: 0, trained: true, adapterFile: tiny.path }))
      .rejects.toThrow(/beside the pack, not over it/);
    expect(loadControlPack(packDir).pack.trained).toBe(false);
    // Refused before anything was written: no adapter landed in the committed pack either.
    expect(existsSync(path.join(packDir, 'adapter.gguf'))).toBe(false);
  });
});
