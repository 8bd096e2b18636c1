/**
 * Parity of the committed tokenizer: the trainer's encoder (Hugging Face tokenizers) and
 * llama.cpp through node-llama-cpp, loading a vocab-only GGUF written by the project's GGUF
 * writer, agree on 50 Python files and on awkward text; the special tokens are single CONTROL
 * ids. The 1,000-file run is `node dist/models/tokenizer/checkParity.js`.
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { END_OF_TEXT, FIM_MIDDLE, FIM_PREFIX, FIM_SUFFIX } from '../../server/src/model/specialTokens.js';
import { hfTokenizerFor } from './hfTokenizer.js';
import { loadLlamaVocab, type LlamaVocab } from './llamaVocab.js';
import { checkParity } from './parity.js';
import { checkSpecialTokens } from './specialsCheck.js';
import { readArtifact, tokenId, type TokenizerArtifact } from './tokenizerArtifact.js';

const COMMITTED = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'default', 'tokenizer.json');
/** Debian 12's own Python 3.11 standard library: on every machine this project runs on. */
const STDLIB = '/usr/lib/python3.11';

const AWKWARD = [
  'def f(x):\r\n\treturn x  \r\n',
  "it's what we've said they'll do, 'S'\n",
  'naïve = "déjà vu"  # 中文注释 😀🎉\n',
  'x = 12345678901234567890 + 3.14e-10 + 0x1F\n',
  '\u00a0\u2003x\u200b = 1\u3000\n',
  'a\u0085b\u2028c\u2029d\n',
  'e\u0301 = "combining"\n',
  '\f\v\t \n',
  ' '.repeat(64) + 'deep\n',
  '\n\n\n',
  'print("<NEED> <|endoftext|> <|fim_prefix|> </C_1>")\n',
  '\u0000\u0001\u001b[31m\n',
  '#' + '='.repeat(200) + '\n',
  '\ud83d\ude00'.repeat(5) + '\n',
  'x² = ½ + ٣ + Ⅻ\n',
];

/** Code whose spaces llama.cpp's `clean_spaces` detokenizer would eat under pre "gpt-2". */
const SPACE_SENSITIVE = "from . import x\nif a != b: print(a , 'b', c ? d, e . f)\nit 's 'm 're\n";

async function sampleFiles(count: number): Promise<Array<{ label: string; text: string }>> {
  if (!existsSync(STDLIB)) throw new Error(`${STDLIB} is missing: the parity test reads 50 standard-library files (apt-get install libpython3.11-stdlib)`);
  const names = (await readdir(STDLIB)).filter((n) => n.endsWith('.py'));
  const hash = (n: string) => createHash('sha1').update(n).digest('hex');
  const chosen = names.sort((a, b) => (hash(a) < hash(b) ? -1 : 1)).slice(0, count);
  return Promise.all(chosen.map(async (name) => ({ label: name, text: await readFile(path.join(STDLIB, name), 'utf8') })));
}

let artifact: TokenizerArtifact;
let vocab: LlamaVocab;

beforeAll(async () => {
  artifact = await readArtifact(COMMITTED);
  vocab = await loadLlamaVocab(artifact);
});

afterAll(async () => {
  await vocab?.dispose();
});

describe('tokenizer parity: trainer vs node-llama-cpp', () => {
  test('50 standard-library files, line by line and whole', async () => {
    const files = await sampleFiles(50);
    expect(files).toHaveLength(50);
    const report = await checkParity(files, hfTokenizerFor(artifact), vocab.tokenize);
    expect(report.examples).toEqual([]);
    expect(report.mismatchedFiles).toBe(0);
    expect(report.lines).toBeGreaterThan(5000);
  });

  test.each(AWKWARD.map((text) => [JSON.stringify(text).slice(0, 40), text]))('awkward text %s', async (_name, text) => {
    const report = await checkParity([{ label: 'awkward', text }], hfTokenizerFor(artifact), vocab.tokenize);
    expect(report.examples).toEqual([]);
    expect(vocab.detokenize(vocab.tokenize(text))).toBe(text);
  });
});

test('the check fails when llama.cpp splits text differently (pre-tokenizer "default")', async () => {
  // "default" splits punctuation from the space before it: ' =' is two pieces there, one here.
  const other = await loadLlamaVocab({ ...artifact, pre: 'default' as 'smollm' });
  try {
    const report = await checkParity([{ label: 'assignment', text: 'x = (a + b)\n' }], hfTokenizerFor(artifact), other.tokenize);
    expect(report.mismatchedFiles).toBe(1);
  } finally {
    await other.dispose();
  }
});

test('detokenizing gives the text back, spaces before punctuation included', () => {
  expect(vocab.detokenize(vocab.tokenize(SPACE_SENSITIVE))).toBe(SPACE_SENSITIVE);
});

describe('special tokens in llama.cpp', () => {
  test('each is one CONTROL id when parsed, plain text otherwise, and silent when detokenized', () => {
    expect(checkSpecialTokens(artifact, vocab)).toEqual([]);
  });

  test('the GGUF names end-of-text and the FIM ids', () => {
    const tokens = vocab.model.tokens;
    expect(tokens.infill.prefix).toBe(tokenId(artifact, FIM_PREFIX));
    expect(tokens.infill.suffix).toBe(tokenId(artifact, FIM_SUFFIX));
    expect(tokens.infill.middle).toBe(tokenId(artifact, FIM_MIDDLE));
    expect(tokens.eos).toBe(tokenId(artifact, END_OF_TEXT));
  });
});
