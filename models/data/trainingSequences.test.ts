/**
 * Training sequences are byte-for-byte what inference evaluates: for the same document buffer
 * and cursor, the server's pipeline (completion/pipeline.ts, policies `none` and `full`) sends
 * exactly the prompt part of our fim and rag sequences to the model. Uses the committed
 * tokenizer through node-llama-cpp and the real index and retrieval on a fixture repository.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { DEFAULT_SETTINGS, type CompletionSettings } from '../../shared/settings.js';
import { LineTokenizer } from '../../server/src/prompt/lineTokenizer.js';
import { keywordsOf } from '../../server/src/retrieval/tokens.js';
import { inferencePrompt as pipelinePrompt, loadTestVocabulary, type TestVocabulary } from '../../test/support/recordingPipeline.js';
import { openRepository } from './repositoryTools.js';
import { findTargets, type Target } from './targets.js';
import { evidenceOnlyIdentifiers, lmWindows, parseSequenceFormats, targetSequences, type PromptSettings } from './trainingSequences.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, '..', '..', 'test', 'fixtures', 'retrieval-ws');

let vocabulary: TestVocabulary;
let vocab: TestVocabulary['vocab'];
let special: TestVocabulary['special'];

beforeAll(async () => {
  vocabulary = await loadTestVocabulary();
  ({ vocab, special } = vocabulary);
});

afterAll(async () => {
  await vocabulary?.dispose();
});

/** What the server sends to the model for `target` under `policy`. */
function inferencePrompt(
  target: Target, fileText: string, policy: 'none' | 'full', contextSize: number, settings: CompletionSettings, echoLines: number,
): Promise<number[]> {
  return pipelinePrompt(vocabulary, ROOT, target, fileText, policy, { contextSize, echoLines, settings });
}

describe('targetSequences', () => {
  test.each([
    ['api', 'app/checkout.py', 'Cart(', 0],
    ['line', 'app/checkout.py', 'inventory.restock(sku, 1)', 0],
    ['block', 'app/checkout.py', 'inventory = Inventory()', 0],
    ['api', 'app/checkout.py', 'Cart(', 2],
    ['line', 'app/checkout.py', 'inventory.restock(sku, 1)', 2],
  ] as const)('%s target in %s at %s, cursor echo %d lines: prompts equal the pipeline\'s for none and full', async (kind, relPath, startsWith, echoLines) => {
    const contextSize = 1024;
    const settings = DEFAULT_SETTINGS;
    const tokenizer = new LineTokenizer({ tokenize: vocab.tokenize });
    const repo = await openRepository(ROOT, settings, tokenizer);
    let built: Awaited<ReturnType<typeof targetSequences>>;
    let target: Target;
    let fileText: string;
    try {
      const file = repo.index.file(relPath)!;
      fileText = file.text;
      target = findTargets(file, repo.index, repo.parser)[kind].find((t) => t.text.startsWith(startsWith))!;
      expect(target).toBeDefined();
      const prompt: PromptSettings = { contextSize, settings, special, echoLines };
      built = await targetSequences(repo, prompt, file.absPath, file.text, target);
      // The document is back to its disk content afterwards.
      expect(repo.index.file(relPath)!.text).toBe(fileText);
    } finally {
      repo.dispose();
    }
    expect(built).toBeDefined();
    const supervised = vocab.tokenize(target.text).length + 1;
    for (const [format, policy] of [['fim', 'none'], ['rag', 'full']] as const) {
      const sequence = built![format]!;
      expect(sequence, format).toBeDefined();
      const promptIds = sequence.ids.slice(0, sequence.ids.length - supervised);
      expect(promptIds).toEqual(await inferencePrompt(target, fileText, policy, contextSize, settings, echoLines));
      // Y is a target; its <EOT> only for a block (a line's end is where line mode stops anyway).
      const endMask = kind === 'block' ? 1 : 0;
      expect(Array.from(sequence.mask)).toEqual([...new Array(promptIds.length).fill(0), ...new Array(supervised - 1).fill(1), endMask]);
      expect(vocab.detokenize(sequence.ids.slice(-supervised), true)).toBe(`${target.text}<|endoftext|>`);
      expect(sequence.ids.length).toBeLessThanOrEqual(contextSize);
    }
    // The rag prompt carries cross-file chunks (the import outline first), the fim prompt none.
    const rag = vocab.detokenize(built!.rag!.ids, true);
    expect(rag).toContain('<C_1># app/checkout.py:2\n');
    expect(rag).toContain('# shop/cart.py\nclass Cart:\n');
    expect(rag).toMatch(/<C_\d+># shop\//);
    expect(vocab.detokenize(built!.fim!.ids, true)).not.toContain('<C_1>');
  });

  test('a target longer than maxTokens gives nothing', async () => {
    const tokenizer = new LineTokenizer({ tokenize: vocab.tokenize });
    const repo = await openRepository(ROOT, DEFAULT_SETTINGS, tokenizer);
    try {
      const file = repo.index.file('app/checkout.py')!;
      const target = findTargets(file, repo.index, repo.parser).line[0]!;
      const prompt: PromptSettings = { contextSize: 1024, settings: { ...DEFAULT_SETTINGS, maxTokens: 1 }, special, echoLines: 0 };
      expect(await targetSequences(repo, prompt, file.absPath, file.text, target)).toBeUndefined();
    } finally {
      repo.dispose();
    }
  });

  test('a block longer than maxTokens is cut after its last whole line that fits, with no <EOT>', async () => {
    const tokenizer = new LineTokenizer({ tokenize: vocab.tokenize });
    const repo = await openRepository(ROOT, DEFAULT_SETTINGS, tokenizer);
    try {
      const file = repo.index.file('app/checkout.py')!;
      const target = findTargets(file, repo.index, repo.parser).block.find((t) => t.text.split('\n').length >= 3)!;
      const [first, second] = target.text.split('\n');
      const firstTwo = `${first}\n${second}\n`;
      const maxTokens = tokenizer.text(firstTwo).length + 1; // two lines fit, the third does not
      expect(tokenizer.text(target.text).length).toBeGreaterThan(maxTokens);
      const prompt: PromptSettings = { contextSize: 1024, settings: { ...DEFAULT_SETTINGS, maxTokens }, special, echoLines: 2 };
      const built = (await targetSequences(repo, prompt, file.absPath, file.text, target))!;
      expect(built.cut).toBe(true);
      const supervisedIds = built.fim.ids.filter((_, i) => built.fim.mask[i] === 1);
      expect(vocab.detokenize(supervisedIds, true)).toBe(firstTwo);
      expect(built.fim.ids.at(-1)).not.toBe(special.endOfText);
      expect(built.fim.mask.at(-1)).toBe(1);
    } finally {
      repo.dispose();
    }
  });
});

describe('evidenceOnlyIdentifiers', () => {
  const text = (value: string) => ({ text: value, ids: [] });
  const chunk = (value: string) => ({ candidateIndex: 0, text: value, ids: [], reduced: false });

  test('keeps the identifiers of Y that a chunk body holds and the prefix and suffix do not', () => {
    const plan = {
      prefix: text('from util import helpers\nvalue = '),
      suffix: text('\nprint(value)\n'),
      packed: [chunk('# util/helpers.py:3\ndef normalize_timestamp(ts):\n    return ts\n'), chunk('# other.py:1\nclass Unused:\n    pass\n')],
    };
    expect(evidenceOnlyIdentifiers(plan, 'helpers.normalize_timestamp(value)', keywordsOf('m.py'))).toEqual(['normalize_timestamp']);
    // Nothing the chunks hold: a guess, not a copy.
    expect(evidenceOnlyIdentifiers(plan, 'compute(value)', keywordsOf('m.py'))).toEqual([]);
    // A chunk header's path is not evidence.
    expect(evidenceOnlyIdentifiers({ ...plan, packed: [chunk('# util/stamps.py:1\nx = 1\n')] }, 'stamps.now()', keywordsOf('m.py'))).toEqual([]);
  });

  test.each([
    ['line', 'inventory.restock(sku, 1)', ['restock']],
    ['line', 'cart.add_item(sku, price, quantity)', ['add_item']],
    ['api', 'Cart(', []],
  ] as const)('%s target %s on the fixture repository: evidence-only identifiers %j', async (kind, startsWith, expected) => {
    const tokenizer = new LineTokenizer({ tokenize: vocab.tokenize });
    const repo = await openRepository(ROOT, DEFAULT_SETTINGS, tokenizer);
    try {
      const file = repo.index.file('app/checkout.py')!;
      const target = findTargets(file, repo.index, repo.parser)[kind].find((t) => t.text.startsWith(startsWith))!;
      const prompt: PromptSettings = { contextSize: 1024, settings: DEFAULT_SETTINGS, special, echoLines: 2 };
      const built = (await targetSequences(repo, prompt, file.absPath, file.text, target))!;
      // `Cart` is imported in the prefix. `restock` and `add_item` are defined only in shop/:
      // retrieval brings their classes with their methods' signatures, so only the evidence
      // holds them and a model can copy them from these prompts.
      expect(built.rag).toBeDefined();
      expect(built.evidenceOnly).toEqual(expected);
    } finally {
      repo.dispose();
    }
  });
});

describe('lmWindows', () => {
  test('joins files with <EOT>, cuts full windows, keeps a last window at least half full', () => {
    const tokenizer = new LineTokenizer({ tokenize: (t) => [...t].map((c) => c.charCodeAt(0)) });
    const windows = lmWindows([{ path: 'a.py', text: 'abc\n' }, { path: 'b.py', text: 'defg\n' }], tokenizer, 0, 4);
    expect(windows.map((w) => w.ids)).toEqual([[97, 98, 99, 10], [0, 100, 101, 102], [103, 10, 0]]);
    expect(windows.map((w) => w.path)).toEqual(['a.py', 'a.py', 'b.py']);
    expect(windows.every((w) => w.mask.every((m) => m === 1))).toBe(true);
    expect(lmWindows([{ path: 'a.py', text: 'abcd' }], tokenizer, 0, 4).map((w) => w.ids)).toEqual([[97, 98, 99, 100]]);
  });
});

test('format lists parse, and an unknown format names its flag', () => {
  expect([...parseSequenceFormats('lm, fim,rag', '--formats')]).toEqual(['lm', 'fim', 'rag']);
  expect([...parseSequenceFormats('lm', '--replay-formats')]).toEqual(['lm']);
  expect(() => parseSequenceFormats('lm,f1', '--replay-formats')).toThrow('unknown format "f1" in --replay-formats');
});
