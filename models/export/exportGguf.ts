/**
 * Turns the trainer's tensor dump into a llama-architecture GGUF with the project's GgufWriter.
 *
 * Keys follow llama.cpp's LLM_ARCH_LLAMA loader; tensor names come from the dump (the trainer
 * names them as llama.cpp does: token_embd, blk.N.attn_q, ..., output_norm, output). A torch
 * [rows, cols] matrix is ggml ne = [cols, rows] with the same bytes, so shapes are reversed and
 * data is copied as is. Norms stay F32; 2-D weights are F32, F16 or Q8_0 (Q8_0 needs the row
 * length to be a multiple of 32, otherwise that tensor falls back to F16).
 *
 *   node dist/models/export/exportGguf.js --dump model.tensors --tokenizer TOKENIZER --out model.gguf [--type q8_0]
 */
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import { GgufWriter } from '../../server/src/model/gguf/ggufWriter.js';
import { GgmlType, GgufValueType, Q8_0_BLOCK_SIZE, type WritableGgmlType } from '../../server/src/model/gguf/ggufTypes.js';
import { CONTROL_TRAINED_KEY, ECHO_LINES_KEY, isEchoLineCount, MAX_ECHO_LINES, NEED_THRESHOLD_KEY } from '../../server/src/model/reposhapleyKeys.js';
import { openTensorDump, type TensorDump } from './tensorDump.js';
import { loadTokenizer } from './tokenizerMetadata.js';

export type WeightType = 'f32' | 'f16' | 'q8_0';

export interface ExportOptions {
  dumpPath: string;
  /** The tokenizer artifact (models/default/tokenizer.json) or a `.gguf` whose `tokenizer.*` keys are copied. */
  tokenizerPath: string;
  outPath: string;
  /** Encoding of 2-D weights (default q8_0); norms are always F32. */
  weightType?: WeightType;
  /** `general.name` (default: the output file name without extension). */
  name?: string;
  /**
   * Whether the model was trained to use the control tokens (distilled, issue 5). A base model
   * has them in its vocabulary but never learned KEEP/DROP, so `auto` must not pick reposhapley.
   */
  controlTrained?: boolean;
  /** t_c tuned on validation packages (models/labeling/tuneThreshold.ts), recorded for the server. */
  needThreshold?: number;
  /** Prefix lines the training data repeated after <MID> (its index.json `echoLines`); 0 writes nothing. */
  echoLines?: number;
}

export interface ExportSummary {
  outPath: string;
  bytes: number;
  tensors: number;
  vocabularySize: number;
  types: Record<string, number>;
}

const GGML_TYPES: Record<WeightType, WritableGgmlType> = { f32: GgmlType.F32, f16: GgmlType.F16, q8_0: GgmlType.Q8_0 };
/** llama.cpp LLAMA_FTYPE: ALL_F32, MOSTLY_F16, MOSTLY_Q8_0. */
const FILE_TYPES: Record<WeightType, number> = { f32: 0, f16: 1, q8_0: 7 };

/** Write the GGUF; throws when the dump and tokenizer disagree or the dump is not llama. */
export async function exportGguf(options: ExportOptions): Promise<ExportSummary> {
  const weightType = options.weightType ?? 'q8_0';
  const dump = await openTensorDump(options.dumpPath);
  if (dump.architecture !== 'llama') throw new Error(`${dump.path}: architecture ${dump.architecture}, expected llama`);
  const tokenizer = await loadTokenizer(options.tokenizerPath);
  if (tokenizer.tokens.length !== dump.config.vocab_size) {
    throw new Error(`tokenizer ${tokenizer.path} has ${tokenizer.tokens.length} tokens but the model's vocabulary is ${dump.config.vocab_size}`);
  }
  const writer = new GgufWriter();
  addModelKvs(writer, dump, weightType, options.name ?? path.basename(options.outPath).replace(/\.gguf$/, ''));
  writer.addKv(CONTROL_TRAINED_KEY, options.controlTrained ?? false, GgufValueType.BOOL);
  if (options.needThreshold !== undefined) {
    if (!(options.needThreshold >= 0 && options.needThreshold <= 1)) throw new RangeError(`need threshold ${options.needThreshold} is not in [0, 1]`);
    writer.addKv(NEED_THRESHOLD_KEY, options.needThreshold, GgufValueType.FLOAT32);
  }
  if (options.echoLines) {
    if (!isEchoLineCount(options.echoLines)) {
      throw new RangeError(`echo lines ${options.echoLines} is not a whole number in [0, ${MAX_ECHO_LINES}]`);
    }
    writer.addKv(ECHO_LINES_KEY, options.echoLines, GgufValueType.UINT32);
  }
  tokenizer.addTo(writer);
  const types = addTensors(writer, dump, GGML_TYPES[weightType]);
  const bytes = await writer.write(options.outPath);
  return { outPath: options.outPath, bytes, tensors: dump.tensors.length, vocabularySize: tokenizer.tokens.length, types };
}

function addModelKvs(writer: GgufWriter, dump: TensorDump, weightType: WeightType, name: string): void {
  const c = dump.config;
  const u32 = GgufValueType.UINT32;
  const f32 = GgufValueType.FLOAT32;
  writer
    .addKv('general.architecture', 'llama')
    .addKv('general.name', name)
    .addKv('general.alignment', 32, u32)
    .addKv('general.file_type', FILE_TYPES[weightType], u32)
    .addKv('llama.vocab_size', c.vocab_size, u32)
    .addKv('llama.context_length', c.context_length, u32)
    .addKv('llama.embedding_length', c.d_model, u32)
    .addKv('llama.block_count', c.n_layers, u32)
    .addKv('llama.feed_forward_length', c.ff_dim, u32)
    .addKv('llama.attention.head_count', c.n_heads, u32)
    .addKv('llama.attention.head_count_kv', c.n_kv_heads, u32)
    .addKv('llama.attention.layer_norm_rms_epsilon', c.norm_eps, f32)
    .addKv('llama.rope.dimension_count', c.d_model / c.n_heads, u32)
    .addKv('llama.rope.freq_base', c.rope_theta, f32);
  // Provenance for the model card; llama.cpp ignores keys it does not know.
  const meta = dump.meta;
  if (typeof meta.tokens_seen === 'number') writer.addKv('reposhapley.training.tokens_seen', BigInt(Math.round(meta.tokens_seen)), GgufValueType.UINT64);
  if (typeof meta.step === 'number') writer.addKv('reposhapley.training.steps', meta.step, u32);
  if (typeof meta.val_loss === 'number') writer.addKv('reposhapley.training.val_loss', meta.val_loss, f32);
}

function addTensors(writer: GgufWriter, dump: TensorDump, matrixType: WritableGgmlType): Record<string, number> {
  const names = new Set(dump.tensors.map((t) => t.name));
  const missing = requiredTensors(dump).filter((n) => !names.has(n));
  if (missing.length > 0) throw new Error(`${dump.path} lacks tensors: ${missing.join(', ')}`);
  const counts: Record<string, number> = {};
  for (const tensor of dump.tensors) {
    const ne = [...tensor.shape].reverse();
    let type: WritableGgmlType = tensor.shape.length === 1 ? GgmlType.F32 : matrixType;
    if (type === GgmlType.Q8_0 && ne[0] % Q8_0_BLOCK_SIZE !== 0) type = GgmlType.F16;
    counts[GgmlType[type]] = (counts[GgmlType[type]] ?? 0) + 1;
    writer.addTensor(tensor.name, ne, () => dump.read(tensor), type);
  }
  return counts;
}

function requiredTensors(dump: TensorDump): string[] {
  const names = ['token_embd.weight', 'output_norm.weight'];
  if (!dump.config.tie_embeddings) names.push('output.weight');
  const parts = ['attn_norm', 'attn_q', 'attn_k', 'attn_v', 'attn_output', 'ffn_norm', 'ffn_gate', 'ffn_up', 'ffn_down'];
  for (let i = 0; i < dump.config.n_layers; i++) names.push(...parts.map((p) => `blk.${i}.${p}.weight`));
  return names;
}

async function main(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      dump: { type: 'string' },
      tokenizer: { type: 'string' },
      out: { type: 'string' },
      type: { type: 'string', default: 'q8_0' },
      name: { type: 'string' },
      'control-trained': { type: 'boolean', default: false },
      'need-threshold': { type: 'string' },
      'echo-lines': { type: 'string' },
    },
  });
  if (!values.dump || !values.tokenizer || !values.out) {
    throw new Error('usage: exportGguf --dump DUMP --tokenizer models/default/tokenizer.json|T.gguf --out OUT.gguf [--type f32|f16|q8_0] [--name NAME] [--control-trained] [--need-threshold T] [--echo-lines N]');
  }
  if (!(values.type! in GGML_TYPES)) throw new Error(`--type must be f32, f16 or q8_0, got ${values.type}`);
  const summary = await exportGguf({
    dumpPath: values.dump, tokenizerPath: values.tokenizer, outPath: values.out,
    weightType: values.type as WeightType, name: values.name, controlTrained: values['control-trained'],
    needThreshold: values['need-threshold'] === undefined ? undefined : Number(values['need-threshold']),
    echoLines: values['echo-lines'] === undefined ? undefined : Number(values['echo-lines']),
  });
  const { size } = await stat(summary.outPath);
  process.stdout.write(`${JSON.stringify({ ...summary, megabytes: +(size / 2 ** 20).toFixed(2) })}\n`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main(process.argv.slice(2)).catch((error: unknown) => {
    process.stderr.write(`exportGguf: ${(error as Error).message}\n`);
    process.exit(1);
  });
}
