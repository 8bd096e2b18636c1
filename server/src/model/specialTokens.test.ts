import { describe, expect, test } from 'vitest';
import {
  CHUNK_CLOSE_TOKENS,
  CHUNK_OPEN_TOKENS,
  CONTROL_TOKENS,
  FIM_LAYOUTS,
  MAX_CHUNKS,
  REPOSHAPLEY_SPECIAL_TOKENS,
  chunkCloseToken,
  chunkOpenToken,
} from './specialTokens.js';

describe('special token texts', () => {
  test('chunk delimiters are <C_i> and </C_i> for i = 1..MAX_CHUNKS', () => {
    expect(MAX_CHUNKS).toBe(10);
    expect(CHUNK_OPEN_TOKENS[0]).toBe('<C_1>');
    expect(CHUNK_OPEN_TOKENS[9]).toBe('<C_10>');
    expect(CHUNK_CLOSE_TOKENS[9]).toBe('</C_10>');
    expect(chunkOpenToken(3)).toBe('<C_3>');
    expect(chunkCloseToken(3)).toBe('</C_3>');
  });

  test.each([0, 11, 1.5, -1])('chunk index %s is rejected', (index) => {
    expect(() => chunkOpenToken(index)).toThrow(RangeError);
    expect(() => chunkCloseToken(index)).toThrow(RangeError);
  });

  test('the RepoShapley vocabulary adds 29 distinct tokens', () => {
    expect(REPOSHAPLEY_SPECIAL_TOKENS).toHaveLength(4 + CONTROL_TOKENS.length + 2 * MAX_CHUNKS);
    expect(new Set(REPOSHAPLEY_SPECIAL_TOKENS).size).toBe(REPOSHAPLEY_SPECIAL_TOKENS.length);
    expect(REPOSHAPLEY_SPECIAL_TOKENS.slice(0, 9)).toEqual([
      '<|endoftext|>', '<|fim_prefix|>', '<|fim_suffix|>', '<|fim_middle|>', '<NEED>', '<DONE>', '<KEEP>', '<DROP>', '<SELECT>',
    ]);
  });

  test('layouts have distinct names and a spelling for every role', () => {
    expect(new Set(FIM_LAYOUTS.map((l) => l.name)).size).toBe(FIM_LAYOUTS.length);
    for (const layout of FIM_LAYOUTS) {
      for (const role of [layout.prefix, layout.suffix, layout.middle, layout.endOfText]) expect(role.length).toBeGreaterThan(0);
    }
    const deepseek = FIM_LAYOUTS.find((l) => l.name === 'deepseek-coder')!;
    // DeepSeek's names mislead: begin precedes the prefix, hole the suffix, end the middle.
    expect([deepseek.prefix[0], deepseek.suffix[0], deepseek.middle[0]]).toEqual(['<｜fim▁begin｜>', '<｜fim▁hole｜>', '<｜fim▁end｜>']);
  });
});
