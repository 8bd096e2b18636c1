/**
 * The `tokenizer.*` GGUF metadata of an exported model, from one of:
 *
 * - the tokenizer artifact (models/default/tokenizer.json, format `reposhapley-tokenizer/1`):
 *   written by models/tokenizer/vocabGguf.ts `addTokenizerMetadata`, the one place that maps
 *   the artifact to GGUF keys (also used for the vocab-only GGUF the data builder tokenizes with,
 *   so training ids are inference ids);
 * - a GGUF file (a vocab-only GGUF, or any model with the same vocabulary; the tests' tiny
 *   tokenizer): every `tokenizer.*` key is copied verbatim.
 *
 * Either way every RepoShapley special must be a CONTROL token and the FIM/eos ids must name the
 * right texts, so a wrong artifact fails at export, not at inference.
 */
import { readFile } from 'node:fs/promises';
import { readGgufHeader, kvArray, kvNumber, type GgufHeader } from '../../server/src/model/gguf/ggufReader.js';
import { GgufValueType, LlamaTokenType } from '../../server/src/model/gguf/ggufTypes.js';
import type { GgufWriter } from '../../server/src/model/gguf/ggufWriter.js';
import {
  END_OF_TEXT,
  FIM_MIDDLE,
  FIM_PREFIX,
  FIM_SUFFIX,
  REPOSHAPLEY_SPECIAL_TOKENS,
} from '../../server/src/model/specialTokens.js';
import { ARTIFACT_FORMAT, validateArtifact, type TokenizerArtifact } from '../tokenizer/tokenizerArtifact.js';
import { addTokenizerMetadata } from '../tokenizer/vocabGguf.js';

export interface TokenizerSource {
  path: string;
  /** The vocabulary, id order. */
  tokens: string[];
  /** Add the `tokenizer.*` keys to a writer. */
  addTo(writer: GgufWriter): void;
}

/** Load a tokenizer artifact (`.json`) or a GGUF's tokenizer (`.gguf`). */
export async function loadTokenizer(path: string): Promise<TokenizerSource> {
  return path.endsWith('.gguf') ? fromGguf(path) : fromArtifact(path);
}

async function fromArtifact(path: string): Promise<TokenizerSource> {
  const artifact = JSON.parse(await readFile(path, 'utf8')) as TokenizerArtifact;
  if (artifact.format !== ARTIFACT_FORMAT) {
    throw new Error(`tokenizer ${path}: format ${String(artifact.format)}, expected ${ARTIFACT_FORMAT} (or pass a .gguf)`);
  }
  validateArtifact(artifact);
  return { path, tokens: artifact.tokens, addTo: (writer) => addTokenizerMetadata(writer, artifact) };
}

async function fromGguf(path: string): Promise<TokenizerSource> {
  const read = await readGgufHeader(path);
  if (read.kind !== 'ok') throw new Error(`tokenizer ${path}: ${read.message}`);
  const header = read.header;
  const tokens = (kvArray(header, 'tokenizer.ggml.tokens') ?? []).map(String);
  if (tokens.length === 0) throw new Error(`tokenizer ${path} has no tokenizer.ggml.tokens`);
  checkSpecials(path, header, tokens);
  const entries = [...header.kv].filter(([key]) => key.startsWith('tokenizer.'));
  return {
    path,
    tokens,
    addTo: (writer) => {
      for (const [key, value] of entries) {
        if (value.type === GgufValueType.ARRAY) writer.addKv(key, value.value, value.elementType);
        else writer.addKv(key, value.value, value.type);
      }
    },
  };
}

function checkSpecials(path: string, header: GgufHeader, tokens: string[]): void {
  const types = (kvArray(header, 'tokenizer.ggml.token_type') ?? []).map(Number);
  const problems: string[] = [];
  for (const text of REPOSHAPLEY_SPECIAL_TOKENS) {
    const id = tokens.indexOf(text);
    if (id < 0) problems.push(`missing ${text}`);
    else if (types[id] !== LlamaTokenType.CONTROL) problems.push(`${text} has token type ${types[id]}, not CONTROL`);
  }
  const expectId = (key: string, text: string) => {
    const value = kvNumber(header, key);
    if (value === undefined || tokens[value] !== text) problems.push(`${key} does not name ${text}`);
  };
  expectId('tokenizer.ggml.fim_pre_token_id', FIM_PREFIX);
  expectId('tokenizer.ggml.fim_suf_token_id', FIM_SUFFIX);
  expectId('tokenizer.ggml.fim_mid_token_id', FIM_MIDDLE);
  expectId('tokenizer.ggml.eos_token_id', END_OF_TEXT);
  if (problems.length > 0) throw new Error(`tokenizer ${path}: ${problems.join('; ')}`);
}
