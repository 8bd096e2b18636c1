import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { writeTinyModel } from '../../../../test/support/tinyModel.js';
import { GgufWriter } from '../gguf/ggufWriter.js';
import { GgufValueType } from '../gguf/ggufTypes.js';
import { readGgufHeader, type GgufHeader } from '../gguf/ggufReader.js';
import { scanSpecialTokens } from './specialTokenIds.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'special-ids-test-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function header(file: string): Promise<GgufHeader> {
  const result = await readGgufHeader(file);
  if (result.kind !== 'ok') throw new Error(result.message);
  return result.header;
}

/** A GGUF with only tokenizer metadata: the scan needs no weights. */
async function vocabularyFile(name: string, tokens: string[], types: number[], extra: Record<string, number> = {}): Promise<GgufHeader> {
  const writer = new GgufWriter()
    .addKv('general.architecture', 'llama')
    .addKv('tokenizer.ggml.tokens', tokens)
    .addKv('tokenizer.ggml.token_type', types, GgufValueType.INT32);
  for (const [key, value] of Object.entries(extra)) writer.addKv(key, value, GgufValueType.UINT32);
  const file = path.join(dir, name);
  await writer.write(file);
  return header(file);
}

describe('scanSpecialTokens', () => {
  test.each([
    ['starcoder', '<fim_prefix>', '<fim_suffix>', '<fim_middle>', '<|endoftext|>'],
    ['codellama', '▁<PRE>', '▁<SUF>', '▁<MID>', '▁<EOT>'],
    ['deepseek-coder', '<｜fim▁begin｜>', '<｜fim▁hole｜>', '<｜fim▁end｜>', '<｜end▁of▁sentence｜>'],
  ] as const)('finds the %s layout by vocabulary when metadata lacks FIM ids', async (layout, prefix, suffix, middle, end) => {
    const tiny = await writeTinyModel({ path: path.join(dir, `${layout}.gguf`), fimLayout: layout, fimMetadata: false, controlTokens: false });
    const scan = scanSpecialTokens(await header(tiny.path));
    expect(scan.fimLayout).toBe(layout);
    expect(scan.special).toMatchObject({
      fimPrefix: tiny.id(prefix), fimSuffix: tiny.id(suffix), fimMiddle: tiny.id(middle), endOfText: tiny.id(end),
    });
    expect(scan.hasControlTokens).toBe(false);
    expect(scan.warnings).toEqual([]);
  });

  test('metadata ids win and name their layout; control tokens make hasControlTokens true', async () => {
    const tiny = await writeTinyModel({ path: path.join(dir, 'full.gguf') });
    const scan = scanSpecialTokens(await header(tiny.path));
    expect(scan.fimLayout).toBe('reposhapley');
    expect(scan.hasControlTokens).toBe(true);
    expect(scan.special.beginOfText).toBe(tiny.id('<|endoftext|>'));
    expect(scan.special.chunkClose?.[4]).toBe(tiny.id('</C_5>'));
  });

  test('CodeLlama spellings without U+2581 are found too', async () => {
    const scan = scanSpecialTokens(await vocabularyFile('codellama-plain.gguf', ['a', '<PRE>', '<SUF>', '<MID>', '<EOT>'], [1, 3, 3, 3, 3]));
    expect(scan).toMatchObject({ fimLayout: 'codellama', special: { fimPrefix: 1, fimSuffix: 2, fimMiddle: 3, endOfText: 4 } });
  });

  test('metadata ids with unknown texts are kept as layout "metadata"', async () => {
    const scan = scanSpecialTokens(await vocabularyFile('custom.gguf', ['a', '[P]', '[S]', '[M]'], [1, 3, 3, 3], {
      'tokenizer.ggml.prefix_token_id': 1, 'tokenizer.ggml.suffix_token_id': 2, 'tokenizer.ggml.middle_token_id': 3,
    }));
    expect(scan).toMatchObject({ fimLayout: 'metadata', special: { fimPrefix: 1, fimSuffix: 2, fimMiddle: 3 } });
  });

  test('out-of-range metadata ids are ignored', async () => {
    const scan = scanSpecialTokens(await vocabularyFile('range.gguf', ['a'], [1], { 'tokenizer.ggml.eos_token_id': 99 }));
    expect(scan.special).toEqual({});
    expect(scan.fimLayout).toBeUndefined();
  });

  test('partial chunk delimiters are all or nothing', async () => {
    const tokens = ['a', '<NEED>', '<DONE>', '<KEEP>', '<DROP>', '<SELECT>', '<C_1>', '</C_1>'];
    const scan = scanSpecialTokens(await vocabularyFile('partial.gguf', tokens, tokens.map(() => 3)));
    expect(scan.hasControlTokens).toBe(false);
    expect(scan.special.need).toBe(1);
    expect(scan.special.chunkOpen).toBeUndefined();
  });

  test('a control token user text could produce is warned about', async () => {
    const scan = scanSpecialTokens(await vocabularyFile('types.gguf', ['a', '<NEED>', '<DONE>'], [1, 1, 4]));
    expect(scan.warnings).toHaveLength(2);
    expect(scan.warnings[0]).toMatch(/"<NEED>" \(id 1\) has token type 1/);
    expect(scan.warnings[1]).toMatch(/USER_DEFINED/);
  });
});
