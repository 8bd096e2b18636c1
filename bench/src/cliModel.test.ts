import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { InvalidArgumentError } from 'commander';
import { afterEach, describe, expect, test } from 'vitest';
import { modelArgument } from './cliModel.js';

describe('the bench\'s --model', () => {
  const initCwd = process.env.INIT_CWD;
  afterEach(() => {
    if (initCwd === undefined) delete process.env.INIT_CWD;
    else process.env.INIT_CWD = initCwd;
  });

  test('a file is taken where the command was typed (npm\'s INIT_CWD), as an absolute path', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'bench-model-'));
    writeFileSync(path.join(dir, 'm.gguf'), 'GGUF');
    process.env.INIT_CWD = dir;
    expect(modelArgument('m.gguf')).toBe(path.join(dir, 'm.gguf'));
  });

  test('a catalog name with no such file stays a name, for the server to resolve to its pulled file', () => {
    process.env.INIT_CWD = mkdtempSync(path.join(os.tmpdir(), 'bench-model-'));
    expect(modelArgument('qwen2.5-coder-1.5b')).toBe('qwen2.5-coder-1.5b');
  });

  test('neither a file nor a catalog name is refused with both reasons', () => {
    process.env.INIT_CWD = mkdtempSync(path.join(os.tmpdir(), 'bench-model-'));
    expect(() => modelArgument('qwen9-coder')).toThrow(InvalidArgumentError);
    expect(() => modelArgument('qwen9-coder')).toThrow(/no such file .*qwen9-coder.*no catalog model/);
  });
});
