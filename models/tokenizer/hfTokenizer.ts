/**
 * Hugging Face `tokenizers` (the npm binding of the Rust library) as trainer and reference
 * encoder: byte-level BPE whose pre-tokenizer isolates each digit and then applies GPT-2's
 * regex (ByteLevel, no prefix space). That is llama.cpp's "gpt2" model with the "smollm"
 * pre-tokenizer (regexes `\p{N}` then GPT-2's; see tokenizerArtifact.ts for why not "gpt-2").
 */
import { readFile } from 'node:fs/promises';
import { BPE, Tokenizer, byteLevelPreTokenizer, digitsPreTokenizer, sequencePreTokenizer } from 'tokenizers';
import { TokenType, type TokenizerArtifact } from './tokenizerArtifact.js';

/** A fresh byte-level BPE tokenizer with llama.cpp's "smollm" pre-tokenization. */
function byteLevelBpe(model: ReturnType<typeof BPE.empty>): Tokenizer {
  const tokenizer = new Tokenizer(model);
  tokenizer.setPreTokenizer(sequencePreTokenizer([digitsPreTokenizer(true), byteLevelPreTokenizer(false, true)]));
  return tokenizer;
}

/**
 * Train on text files and return the merges in learned order. The binding only exposes the
 * model's default trainer (30,000 entries, no minimum frequency): every smaller vocabulary is a
 * prefix of its merges (see buildArtifact). Files are read line by line with line endings kept,
 * so no merge crosses a newline, exactly as the prompt module tokenizes (lineTokenizer.ts).
 */
export async function trainMerges(files: readonly string[], savePath: string): Promise<Array<[string, string]>> {
  const tokenizer = byteLevelBpe(BPE.empty());
  tokenizer.train([...files]);
  tokenizer.save(savePath, false);
  const saved = JSON.parse(await readFile(savePath, 'utf8')) as { model: { merges: Array<string | [string, string]> } };
  return saved.model.merges.map((m) => (typeof m === 'string' ? (m.split(' ') as [string, string]) : m));
}

/** The reference encoder of an artifact (normal tokens only: plain text never yields specials). */
export function hfTokenizerFor(artifact: TokenizerArtifact): Tokenizer {
  const vocab: Record<string, number> = {};
  artifact.tokens.forEach((token, id) => {
    if (artifact.types[id] === TokenType.NORMAL) vocab[token] = id;
  });
  const merges = artifact.merges.map((m) => m.split(' ') as [string, string]);
  return byteLevelBpe(BPE.init(vocab, merges));
}

/** Ids of each text (one encoding per text, as a batch). */
export async function encodeAll(tokenizer: Tokenizer, texts: readonly string[]): Promise<number[][]> {
  if (texts.length === 0) return [];
  const encodings = await tokenizer.encodeBatch([...texts], { addSpecialTokens: false });
  return encodings.map((e) => e.getIds());
}
