/**
 * Tokenizer metadata in GGUF, written with the project's own GGUF writer. The model export
 * calls {@link addTokenizerMetadata}; {@link writeVocabOnlyGguf} writes a file without tensors
 * that node-llama-cpp loads with `vocabOnly: true`, for parity checks and for tokenizing
 * training data exactly as inference will.
 */
import { GgufWriter } from '../../server/src/model/gguf/ggufWriter.js';
import { GgufValueType } from '../../server/src/model/gguf/ggufTypes.js';
import { specialIds, validateArtifact, type TokenizerArtifact } from './tokenizerArtifact.js';

/** Add every `tokenizer.ggml.*` key: vocabulary, types, merges, end-of-text and FIM ids. */
export function addTokenizerMetadata(writer: GgufWriter, artifact: TokenizerArtifact): void {
  validateArtifact(artifact);
  const ids = specialIds(artifact);
  const u32 = GgufValueType.UINT32;
  writer
    .addKv('tokenizer.ggml.model', artifact.model)
    .addKv('tokenizer.ggml.pre', artifact.pre)
    .addKv('tokenizer.ggml.tokens', artifact.tokens)
    .addKv('tokenizer.ggml.token_type', artifact.types, GgufValueType.INT32)
    .addKv('tokenizer.ggml.merges', artifact.merges)
    .addKv('tokenizer.ggml.bos_token_id', ids.endOfText, u32)
    .addKv('tokenizer.ggml.eos_token_id', ids.endOfText, u32)
    .addKv('tokenizer.ggml.eot_token_id', ids.endOfText, u32)
    .addKv('tokenizer.ggml.add_bos_token', false)
    .addKv('tokenizer.ggml.add_eos_token', false)
    .addKv('tokenizer.ggml.fim_pre_token_id', ids.fimPrefix, u32)
    .addKv('tokenizer.ggml.fim_suf_token_id', ids.fimSuffix, u32)
    .addKv('tokenizer.ggml.fim_mid_token_id', ids.fimMiddle, u32);
}

/**
 * A GGUF with the tokenizer and placeholder llama hyperparameters (llama.cpp reads them before
 * the vocabulary even when it loads nothing else), and no tensors.
 */
export async function writeVocabOnlyGguf(artifact: TokenizerArtifact, path: string): Promise<void> {
  const u32 = GgufValueType.UINT32;
  const writer = new GgufWriter()
    .addKv('general.architecture', 'llama')
    .addKv('general.name', 'reposhapley-tokenizer')
    .addKv('general.alignment', 32, u32)
    .addKv('llama.vocab_size', artifact.tokens.length, u32)
    .addKv('llama.context_length', 2048, u32)
    .addKv('llama.embedding_length', 64, u32)
    .addKv('llama.block_count', 1, u32)
    .addKv('llama.feed_forward_length', 128, u32)
    .addKv('llama.attention.head_count', 4, u32)
    .addKv('llama.attention.head_count_kv', 4, u32)
    .addKv('llama.attention.layer_norm_rms_epsilon', 1e-5, GgufValueType.FLOAT32)
    .addKv('llama.rope.dimension_count', 16, u32)
    .addKv('llama.rope.freq_base', 10000, GgufValueType.FLOAT32);
  addTokenizerMetadata(writer, artifact);
  await writer.write(path);
}
