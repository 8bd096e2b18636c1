/**
 * Writes a tiny LLaMA-architecture GGUF with seeded random weights that the real
 * node-llama-cpp loads, for tests and benchmarks of the model runtime.
 *
 * Tokenizer: byte-level BPE (`tokenizer.ggml.model = "gpt2"`, `tokenizer.ggml.pre = "smollm"`:
 * GPT-2 splitting with digits split one by one and without llama.cpp's space cleaning, which
 * under "gpt-2" drops the space before `. , ! ?` when detokenizing, as our own tokenizer does). Vocabulary: the 256 GPT-2 byte
 * tokens, merges learned from a small Python corpus, then the special tokens as CONTROL
 * tokens (type 3), so user text containing "<NEED>" never tokenizes into the NEED id.
 */
import { GgufWriter } from '../../server/src/model/gguf/ggufWriter.js';
import { fnv1a, mulberry32 } from '../../server/src/util/hashing.js';
import { GgmlType, GgufValueType, LlamaTokenType, type WritableGgmlType } from '../../server/src/model/gguf/ggufTypes.js';
import { ECHO_LINES_KEY, NEED_THRESHOLD_KEY } from '../../server/src/model/reposhapleyKeys.js';
import {
  END_OF_TEXT,
  FILE_SEPARATOR,
  FIM_LAYOUTS,
  REPO_NAME,
  REPOSHAPLEY_SPECIAL_TOKENS,
} from '../../server/src/model/specialTokens.js';
import { BYTE_TO_UNICODE, PYTHON_CORPUS, learnMerges } from './byteBpe.js';

/** Options of {@link writeTinyModel}; every field but `path` has a small default. */
export interface TinyModelOptions {
  path: string;
  /** Seed of the weights (default 1). Same options, same file. */
  seed?: number;
  embeddingLength?: number;
  layers?: number;
  heads?: number;
  /** Fewer KV heads than heads gives grouped-query attention. */
  headsKv?: number;
  feedForwardLength?: number;
  contextLength?: number;
  /** Share token_embd.weight as the output matrix (no output.weight tensor). Default false. */
  tiedOutput?: boolean;
  /** Include NEED/DONE/KEEP/DROP/SELECT and the chunk delimiters (default true). */
  controlTokens?: boolean;
  /** Which family's FIM token texts the vocabulary has (default 'reposhapley'). */
  fimLayout?: 'reposhapley' | 'starcoder' | 'codellama' | 'deepseek-coder';
  /** Write `tokenizer.ggml.fim_*_token_id` keys (default true); false forces vocabulary lookup. */
  fimMetadata?: boolean;
  /** Encoding of the 2-D weights (default F32); norms are always F32. */
  weightType?: WritableGgmlType;
  /** Most BPE merges to learn (default 300; the corpus may yield fewer). */
  maxMerges?: number;
  /**
   * Output-row multipliers by token text. A boosted token wins greedy decoding more often
   * (its logit has a larger spread), which lets tests make e.g. newlines likely.
   */
  boostTokens?: Record<string, number>;
  /** Record a tuned t_c (`reposhapley.need_threshold`), as the export does after distillation. */
  needThreshold?: number;
  /** Record a cursor echo (`reposhapley.echo_lines`), as the export does for models trained with one. */
  echoLines?: number;
  /**
   * Append this many unused padding rows (`[PAD<id>]`, type UNUSED), as llama.cpp's converter
   * leaves them in Qwen2.5-Coder's vocabulary; control packs take their ids. Default 0.
   */
  paddingRows?: number;
  /**
   * Type the 128 byte tokens of bytes 0x80–0xFF CONTROL (default false): a random model then ends
   * a completion where it would write bytes that are not UTF-8, locally and through llama-server
   * alike (llama-server refuses to stream such text). Text to tokenize must then be ASCII.
   */
  highBytesControl?: boolean;
  /** Add Qwen2.5-Coder's `<|repo_name|>` and `<|file_sep|>`, so the server lays prompts out as repo-fim (default false). */
  repositoryMarkers?: boolean;
}

/** What was written: the vocabulary, to look ids up in tests. */
export interface TinyModel {
  path: string;
  tokens: string[];
  /** Id of a token text; throws when the vocabulary lacks it. */
  id(text: string): number;
}

const DEFAULTS = {
  seed: 1,
  embeddingLength: 64,
  layers: 2,
  heads: 4,
  feedForwardLength: 128,
  contextLength: 512,
  maxMerges: 300,
};

/** Write the tiny model to `options.path` (the directory must exist). */
export async function writeTinyModel(options: TinyModelOptions): Promise<TinyModel> {
  const vocabulary = buildVocabulary(options);
  const ids = new Map(vocabulary.tokens.map((text, id) => [text, id]));
  const id = (text: string): number => {
    const found = ids.get(text);
    if (found === undefined) throw new Error(`tiny model has no token ${JSON.stringify(text)}`);
    return found;
  };
  const writer = new GgufWriter();
  addModelKvs(writer, options, vocabulary.tokens.length);
  addTokenizerKvs(writer, options, vocabulary, id);
  addTensors(writer, options, vocabulary.tokens.length, boostedRows(options, id));
  await writer.write(options.path);
  return { path: options.path, tokens: vocabulary.tokens, id };
}

interface Vocabulary {
  tokens: string[];
  types: number[];
  merges: string[];
}

function buildVocabulary(options: TinyModelOptions): Vocabulary {
  const merges = learnMerges(PYTHON_CORPUS, options.maxMerges ?? DEFAULTS.maxMerges);
  // Two merges can produce the same text ("a bc", "ab c"); the vocabulary lists it once.
  const normal = [...new Set([...BYTE_TO_UNICODE, ...merges.map((m) => m.replace(' ', ''))])];
  const special = specialTokenTexts(options);
  const first = normal.length + special.length;
  const padding = Array.from({ length: options.paddingRows ?? 0 }, (_, i) => `[PAD${first + i}]`);
  return {
    tokens: [...normal, ...special, ...padding],
    types: [...normal.map((_, id) => (options.highBytesControl && id >= 128 && id < 256 ? LlamaTokenType.CONTROL : LlamaTokenType.NORMAL)), ...special.map(() => LlamaTokenType.CONTROL), ...padding.map(() => LlamaTokenType.UNUSED)],
    merges,
  };
}

function specialTokenTexts(options: TinyModelOptions): string[] {
  const layoutName = options.fimLayout ?? 'reposhapley';
  if (layoutName === 'reposhapley' && (options.controlTokens ?? true)) return [...REPOSHAPLEY_SPECIAL_TOKENS];
  const layout = FIM_LAYOUTS.find((l) => l.name === layoutName);
  if (!layout) throw new Error(`unknown FIM layout ${layoutName}`);
  const texts = [END_OF_TEXT, layout.prefix[0], layout.suffix[0], layout.middle[0], layout.endOfText[0]];
  if (options.controlTokens ?? true) texts.push(...REPOSHAPLEY_SPECIAL_TOKENS);
  if (options.repositoryMarkers) texts.push(REPO_NAME, FILE_SEPARATOR);
  return [...new Set(texts)];
}

function addModelKvs(writer: GgufWriter, options: TinyModelOptions, vocabularySize: number): void {
  const d = options.embeddingLength ?? DEFAULTS.embeddingLength;
  const heads = options.heads ?? DEFAULTS.heads;
  const u32 = GgufValueType.UINT32;
  writer
    .addKv('general.architecture', 'llama')
    .addKv('general.name', 'reposhapley-tiny-test')
    .addKv('general.alignment', 32, u32)
    .addKv('general.file_type', fileType(options.weightType ?? GgmlType.F32), u32)
    .addKv('llama.vocab_size', vocabularySize, u32)
    .addKv('llama.context_length', options.contextLength ?? DEFAULTS.contextLength, u32)
    .addKv('llama.embedding_length', d, u32)
    .addKv('llama.block_count', options.layers ?? DEFAULTS.layers, u32)
    .addKv('llama.feed_forward_length', options.feedForwardLength ?? DEFAULTS.feedForwardLength, u32)
    .addKv('llama.attention.head_count', heads, u32)
    .addKv('llama.attention.head_count_kv', options.headsKv ?? heads, u32)
    .addKv('llama.attention.layer_norm_rms_epsilon', 1e-5, GgufValueType.FLOAT32)
    .addKv('llama.rope.dimension_count', d / heads, u32)
    .addKv('llama.rope.freq_base', 10000, GgufValueType.FLOAT32);
  if (options.needThreshold !== undefined) writer.addKv(NEED_THRESHOLD_KEY, options.needThreshold, GgufValueType.FLOAT32);
  if (options.echoLines !== undefined) writer.addKv(ECHO_LINES_KEY, options.echoLines, GgufValueType.UINT32);
}

/** llama.cpp's LLAMA_FTYPE for an all-F32 / mostly-F16 / mostly-Q8_0 model. */
function fileType(type: WritableGgmlType): number {
  // llama_ftype: ALL_F32, MOSTLY_F16, MOSTLY_Q8_0, MOSTLY_Q5_0.
  return type === GgmlType.F32 ? 0 : type === GgmlType.F16 ? 1 : type === GgmlType.Q5_0 ? 8 : 7;
}

function addTokenizerKvs(
  writer: GgufWriter, options: TinyModelOptions, vocabulary: Vocabulary, id: (text: string) => number,
): void {
  const u32 = GgufValueType.UINT32;
  writer
    .addKv('tokenizer.ggml.model', 'gpt2')
    .addKv('tokenizer.ggml.pre', 'smollm')
    .addKv('tokenizer.ggml.tokens', vocabulary.tokens)
    .addKv('tokenizer.ggml.token_type', vocabulary.types, GgufValueType.INT32)
    .addKv('tokenizer.ggml.merges', vocabulary.merges)
    .addKv('tokenizer.ggml.bos_token_id', id(END_OF_TEXT), u32)
    .addKv('tokenizer.ggml.eos_token_id', id(END_OF_TEXT), u32)
    .addKv('tokenizer.ggml.add_bos_token', false)
    .addKv('tokenizer.ggml.add_eos_token', false);
  if (options.fimMetadata ?? true) {
    const layout = FIM_LAYOUTS.find((l) => l.name === (options.fimLayout ?? 'reposhapley'))!;
    writer
      .addKv('tokenizer.ggml.fim_pre_token_id', id(layout.prefix[0]), u32)
      .addKv('tokenizer.ggml.fim_suf_token_id', id(layout.suffix[0]), u32)
      .addKv('tokenizer.ggml.fim_mid_token_id', id(layout.middle[0]), u32);
  }
}

function boostedRows(options: TinyModelOptions, id: (text: string) => number): Map<number, number> {
  return new Map(Object.entries(options.boostTokens ?? {}).map(([text, factor]) => [id(text), factor]));
}

function addTensors(writer: GgufWriter, options: TinyModelOptions, vocabularySize: number, boosts: Map<number, number>): void {
  const d = options.embeddingLength ?? DEFAULTS.embeddingLength;
  const heads = options.heads ?? DEFAULTS.heads;
  const dKv = (options.headsKv ?? heads) * (d / heads);
  const ff = options.feedForwardLength ?? DEFAULTS.feedForwardLength;
  const type = options.weightType ?? GgmlType.F32;
  const seed = options.seed ?? DEFAULTS.seed;
  // Tensors are generated lazily, each from its own seed, so writing order cannot change them.
  const random = (name: string, count: number, std: number) => () => gaussian(seed, name, count, std);
  const tied = options.tiedOutput ?? false;
  writer.addTensor('token_embd.weight', [d, vocabularySize], () => boostRows(random('token_embd', d * vocabularySize, 1)(), tied ? boosts : new Map(), d), type);
  writer.addTensor('output_norm.weight', [d], ones(d), GgmlType.F32);
  if (!tied) {
    // Logit spread ≈ 0.5·√d ≈ 4 gives peaked, varied greedy choices.
    writer.addTensor('output.weight', [d, vocabularySize], () => boostRows(random('output', d * vocabularySize, 0.5)(), boosts, d), type);
  }
  for (let layer = 0; layer < (options.layers ?? DEFAULTS.layers); layer++) {
    const blk = (part: string) => `blk.${layer}.${part}.weight`;
    writer
      .addTensor(blk('attn_norm'), [d], ones(d), GgmlType.F32)
      .addTensor(blk('attn_q'), [d, d], random(blk('attn_q'), d * d, 1 / Math.sqrt(d)), type)
      .addTensor(blk('attn_k'), [d, dKv], random(blk('attn_k'), d * dKv, 1 / Math.sqrt(d)), type)
      .addTensor(blk('attn_v'), [d, dKv], random(blk('attn_v'), d * dKv, 1 / Math.sqrt(d)), type)
      .addTensor(blk('attn_output'), [d, d], random(blk('attn_output'), d * d, 1 / Math.sqrt(d)), type)
      .addTensor(blk('ffn_norm'), [d], ones(d), GgmlType.F32)
      .addTensor(blk('ffn_gate'), [d, ff], random(blk('ffn_gate'), d * ff, 1 / Math.sqrt(d)), type)
      .addTensor(blk('ffn_up'), [d, ff], random(blk('ffn_up'), d * ff, 1 / Math.sqrt(d)), type)
      .addTensor(blk('ffn_down'), [ff, d], random(blk('ffn_down'), ff * d, 1 / Math.sqrt(ff)), type);
  }
}

function ones(count: number): Float32Array {
  return new Float32Array(count).fill(1);
}

function boostRows(values: Float32Array, boosts: Map<number, number>, rowLength: number): Float32Array {
  for (const [row, factor] of boosts) {
    for (let i = row * rowLength; i < (row + 1) * rowLength; i++) values[i] *= factor;
  }
  return values;
}

/** `count` normal samples with standard deviation `std`, from a seed and a tensor name. */
export function gaussian(seed: number, name: string, count: number, std: number): Float32Array {
  const next = mulberry32(fnv1a(`${seed}:${name}`));
  const out = new Float32Array(count);
  for (let i = 0; i < count; i += 2) {
    // Box-Muller; 1 - u keeps the logarithm finite.
    const radius = Math.sqrt(-2 * Math.log(1 - next()));
    const angle = 2 * Math.PI * next();
    out[i] = radius * Math.cos(angle) * std;
    if (i + 1 < count) out[i + 1] = radius * Math.sin(angle) * std;
  }
  return out;
}
