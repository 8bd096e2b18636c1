import { stat } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';
import { REPOSHAPLEY_SPECIAL_TOKENS } from '../../server/src/model/specialTokens.js';
import { BYTE_TO_UNICODE, fromByteLevel, toByteLevel } from './byteLevel.js';
import { buildArtifact, readArtifact, serializeArtifact, specialIds, TokenType, validateArtifact } from './tokenizerArtifact.js';

const COMMITTED = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'default', 'tokenizer.json');
const G = BYTE_TO_UNICODE[32]!; // 'Ġ', the space byte

const MERGES: Array<[string, string]> = [
  ['d', 'e'], ['de', 'f'], [G, 'def'], ['s', 'e'], ['l', 'f'], ['se', 'lf'], ['e', 'f'], ['d', 'ef'], ['x', 'y'],
];

describe('buildArtifact', () => {
  test('bytes first, merged tokens in merge order, specials last as CONTROL', () => {
    const artifact = buildArtifact(MERGES, 256 + 5 + REPOSHAPLEY_SPECIAL_TOKENS.length, {});
    expect(artifact.tokens.slice(0, 256)).toEqual(BYTE_TO_UNICODE);
    expect(artifact.tokens.slice(256, 261)).toEqual(['de', 'def', `${G}def`, 'se', 'lf']);
    expect(artifact.tokens.slice(261)).toEqual(REPOSHAPLEY_SPECIAL_TOKENS);
    expect(artifact.types.slice(0, 261).every((t) => t === TokenType.NORMAL)).toBe(true);
    expect(artifact.types.slice(261).every((t) => t === TokenType.CONTROL)).toBe(true);
    expect(artifact.merges).toEqual(['d e', 'de f', `${G} def`, 's e', 'l f']);
  });

  test('a merge that respells a known token is kept but adds no entry', () => {
    const artifact = buildArtifact(MERGES, 256 + 8 + REPOSHAPLEY_SPECIAL_TOKENS.length, {});
    expect(artifact.tokens.slice(256, 264)).toEqual(['de', 'def', `${G}def`, 'se', 'lf', 'self', 'ef', 'xy']);
    expect(artifact.merges).toContain('d ef');
    expect(artifact.tokens.filter((t) => t === 'def')).toHaveLength(1);
  });

  test('asking for more tokens than the merges make is an error', () => {
    expect(() => buildArtifact(MERGES, 1000, {})).toThrow(/only/);
  });

  test('a merge of tokens no earlier merge made is an error', () => {
    expect(() => buildArtifact([['d', 'ef']], 256 + 1 + REPOSHAPLEY_SPECIAL_TOKENS.length, {})).toThrow(/not made by an earlier merge/);
  });

  test('validateArtifact rejects a merge whose result is missing', () => {
    const artifact = buildArtifact(MERGES, 256 + 3 + REPOSHAPLEY_SPECIAL_TOKENS.length, {});
    expect(() => validateArtifact({ ...artifact, merges: [...artifact.merges, 'x y'] })).toThrow(/bad merge/);
  });
});

test('byte-level spelling round-trips any UTF-8', () => {
  const text = 'déf f(x):\n\treturn "🎉"\r\n';
  expect(fromByteLevel(toByteLevel(text)).toString('utf8')).toBe(text);
  expect(toByteLevel(' a\n')).toBe(`${G}aĊ`);
});

describe('the committed tokenizer (models/default/tokenizer.json)', () => {
  test('is valid, 8,192 entries, specials last, and compact', async () => {
    const artifact = await readArtifact(COMMITTED);
    expect(artifact.tokens).toHaveLength(8192);
    expect(artifact.tokens.slice(-REPOSHAPLEY_SPECIAL_TOKENS.length)).toEqual(REPOSHAPLEY_SPECIAL_TOKENS);
    expect(specialIds(artifact).endOfText).toBe(8192 - REPOSHAPLEY_SPECIAL_TOKENS.length);
    expect((await stat(COMMITTED)).size).toBeLessThan(400 * 1024);
    expect(serializeArtifact(artifact)).toBe(serializeArtifact(JSON.parse(serializeArtifact(artifact))));
  });

  test('learned Python pieces', async () => {
    const artifact = await readArtifact(COMMITTED);
    for (const piece of [`${G}self`, `${G}def`, `${G}return`, `${G}import`, 'Ċ']) expect(artifact.tokens).toContain(piece);
  });
});
