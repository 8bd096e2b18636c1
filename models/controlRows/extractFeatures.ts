/**
 * Features for training a pretrained model's control rows (issue 20): the frozen model's final
 * hidden state h at every position where a control token is decided, for each labeled instance,
 * rebuilt exactly as it was labeled and prompted by the layout's control format
 * (prompt/layouts.ts), teacher-forced with the labels:
 *
 *   trigger     h after the trigger prompt; target r* (<NEED>/<DONE>)                    L_R
 *   selection   h after each candidate step (NEED instances only); target q_i*           L_S
 *   generation  h at <|fim_middle|> and after each token of Y in the no-retrieval prompt;
 *               target y_t. The new output rows join the softmax there, so this term
 *               keeps them from taking probability from the completion                 L_Y
 *
 * Output (a folder, resumable: finished ids are skipped, a torn tail is cut):
 *   states.f32     one row of `hidden` float32 per position
 *   index.jsonl    per instance: id, split, labels, and the rows of its positions
 *   output.f16     the model's output matrix (vocabulary × hidden, float16), for logZ and logits
 *   meta.json      hidden, vocabulary, control token ids, the model and label source
 *
 * --trigger-target full-helps labels the trigger by what the policy's NEED branch can reach
 * (NEED where Full-Retrieve's decode beats ∅'s by ES), for every record, not only those whose
 * verified coalition reached τ_es; --no-selection skips the candidate steps (about half the
 * prompt tokens) when only the trigger's rows will train; --adapter reads the states through the
 * LoRA adapter the server applies, so rows trained on them match what it serves.
 *
 * With --sequences it writes the token sequences instead (sequences.jsonl: per instance the label
 * fields and the token ids of instanceSequences.ts), for the fine-tune (models/train/control_finetune.py),
 * with no forward pass: seconds, not minutes. --evidence full makes each record's evidence prompt the
 * `full` policy's (every packed candidate), for every record that rebuilds, labeled or not: data for
 * a generation-only fine-tune, which needs no Shapley label.
 *
 *   node dist/models/controlRows/extractFeatures.js [--labels DIR] [--model NAME|FILE] [--source shapley] [--sequences]
 */
import { existsSync } from 'node:fs';
import { appendFile, mkdir, open, readFile, stat, truncate, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Command } from 'commander';
import { defaultCacheDir } from '../../bench/src/debianPackages.js';
import { DEFAULT_SETTINGS } from '../../shared/settings.js';
import type { CompletionModel, HiddenStateReader } from '../../server/src/model/completionModel.js';
import { readGgufHeader, readTensorBytes } from '../../server/src/model/gguf/ggufReader.js';
import { decodeTensorData, float32ToFloat16Bits, type WritableGgmlType } from '../../server/src/model/gguf/ggufTypes.js';
import { loadLlamaModel } from '../../server/src/model/llama/loadLlamaModel.js';
import { chooseLayout, type PromptLayout } from '../../server/src/prompt/layouts.js';
import { LineTokenizer } from '../../server/src/prompt/lineTokenizer.js';
import { specialId, type SpecialRole } from '../../server/src/prompt/segments.js';
import { createStreamLogger } from '../../server/src/util/logger.js';
import { Corpus, DEFAULT_MANIFEST, defaultCorpusDir } from '../corpus/corpusReader.js';
import { LABEL_SOURCES, type LabelSource } from '../data/distillSequences.js';
import { openRepository } from '../data/repositoryTools.js';
import { DEFAULT_LABEL_MODEL, defaultLabelFolders, readLabelsByRepository } from '../labeling/rebuildInstance.js';
import { generationStates } from './generationStates.js';
import {
  EVIDENCE_PROMPTS, instanceSequences, TRIGGER_TARGETS, type EvidencePrompt, type InstanceFields, type InstanceSequences, type TriggerTarget,
} from './instanceSequences.js';
import { resolveDerivedModel } from './derivedModel.js';
import { PACK_TOKEN_TEXTS } from './packFiles.js';
import { SequenceWriter } from './sequenceFile.js';

/**
 * What the states in a features folder mean; a folder of another format is refused, never mixed.
 * 2: the trigger is read where the completion starts (the no-retrieval prompt through
 * `<|fim_middle|>`, prompt/layouts.ts); 1 (absent) read it at the end of the suffix.
 */
export const FEATURE_FORMAT = 2;

interface Options {
  labels: string;
  model: string;
  source: LabelSource;
  out?: string;
  manifest: string;
  corpus: string;
  threads: number;
  minEs?: number;
  sequences: boolean;
  triggerTarget: TriggerTarget;
  selection: boolean;
  evidence: EvidencePrompt;
  adapter?: string;
}

/** One instance's line in index.jsonl. */
export interface FeatureRecord extends InstanceFields {
  triggerRow: number;
  selectionRows: number[];
  generationRows: number[];
  /** y_1..y_T: the token each generation row predicts. */
  generationTargets: number[];
}

async function main(): Promise<void> {
  const options = parseOptions();
  const modelPath = resolveDerivedModel(options.model);
  const kind = options.sequences ? 'sequences' : 'features';
  const out = options.out ?? path.join(defaultCacheDir(), `control-${kind}-${options.source}${options.minEs === undefined ? '' : `-es${options.minEs}`}` +
    `${options.triggerTarget === 'verified' ? '' : `-${options.triggerTarget}`}${options.adapter ? '-adapter' : ''}${options.selection ? '' : '-no-selection'}`);
  await mkdir(out, { recursive: true });
  await refuseOtherFormat(out);
  const loaded = await loadLlamaModel(
    { path: modelPath, threads: options.threads, gpuLayers: 'auto', adapterPath: options.adapter }, createStreamLogger('features', 'warn'));
  if (loaded.kind !== 'ok') throw new Error(loaded.message);
  const model = loaded.model;
  if (!model.info.hasControlTokens || !model.createHiddenStateReader) throw new Error(`${modelPath} has no control tokens: pass the derived model (packTool init)`);
  const reader = options.sequences ? undefined : await model.createHiddenStateReader();
  try {
    const hidden = await writeMeta(out, modelPath, model, options, { outputMatrix: !options.sequences });
    const writer = options.sequences ? await SequenceWriter.open(out) : await FeatureWriter.open(out, hidden);
    const labels = await readLabelsByRepository(options.labels.split(','));
    const corpus = await Corpus.open(options.manifest, options.corpus);
    const layout = chooseLayout(model.info);
    const counts = { written: 0, skipped: 0, stale: 0, unlabeled: 0 };
    for (const [repository, records] of labels) {
      const pending = records.filter((r) => !writer.done.has(r.id));
      counts.skipped += records.length - pending.length;
      if (pending.length === 0) continue;
      const repo = await openRepository(path.join(corpus.dir, repository), DEFAULT_SETTINGS, new LineTokenizer(model));
      try {
        for (const record of pending) {
          const sequences = await instanceSequences(record, repo, model, layout, options);
          if (typeof sequences === 'string') counts[sequences]++;
          else {
            await (writer instanceof SequenceWriter ? writer.add(sequences) : extractStates(sequences, reader!, writer));
            counts.written++;
          }
          reportCounts(counts);
        }
      } finally {
        repo.dispose();
      }
    }
    process.stderr.write(`${process.stderr.isTTY ? '\n' : `${JSON.stringify(counts)}\n`}${kind} -> ${out}\n`);
  } finally {
    await reader?.dispose();
    await model.dispose();
  }
}

/** The counts on one rewritten line at a terminal; in a log file, a line every 50 records. */
function reportCounts(counts: Record<string, number>): void {
  if (process.stderr.isTTY) process.stderr.write(`\r${JSON.stringify(counts)}`);
  else if (Object.values(counts).reduce((sum, n) => sum + n, 0) % 50 === 0) process.stderr.write(`${JSON.stringify(counts)}\n`);
}

/** The frozen states at the instance's decision positions (module comment), appended to the folder. */
async function extractStates(sequences: InstanceSequences, reader: HiddenStateReader, writer: FeatureWriter): Promise<void> {
  const { fields, trigger, generation: rest, y, selection: steps } = sequences;
  const { states: generation, triggerState } = await generationStates(reader, trigger, [...trigger, ...rest], y);
  const selection = steps.length > 0 ? (await reader.statesAfter(trigger, steps)).slice(1) : [];
  await writer.add(fields, triggerState, selection, generation, y);
}

/** Appends states and index lines; knows which ids are done and cuts a torn tail on open. */
class FeatureWriter {
  private constructor(private readonly dir: string, private readonly hidden: number, private rows: number, readonly done: Set<string>) {}

  static async open(dir: string, hidden: number): Promise<FeatureWriter> {
    const indexFile = path.join(dir, 'index.jsonl');
    const statesFile = path.join(dir, 'states.f32');
    const records = existsSync(indexFile)
      ? (await readFile(indexFile, 'utf8')).split('\n').flatMap((line) => { try { return line ? [JSON.parse(line) as FeatureRecord] : []; } catch { return []; } })
      : [];
    const used = Math.max(0, ...records.flatMap((r) => [r.triggerRow, ...r.selectionRows, ...r.generationRows].map((row) => row + 1)));
    if (!existsSync(statesFile)) await writeFile(statesFile, Buffer.alloc(0));
    if ((await stat(statesFile)).size > used * hidden * 4) await truncate(statesFile, used * hidden * 4);
    // Rewrite the index without a torn last line.
    await writeFile(indexFile, records.map((r) => JSON.stringify(r) + '\n').join(''));
    return new FeatureWriter(dir, hidden, used, new Set(records.map((r) => r.id)));
  }

  async add(
    fields: Omit<FeatureRecord, 'triggerRow' | 'selectionRows' | 'generationRows' | 'generationTargets'>,
    trigger: Float32Array, selection: Float32Array[], generation: Float32Array[], targets: number[],
  ): Promise<void> {
    const states = [trigger, ...selection, ...generation];
    const first = this.rows;
    const bytes = Buffer.alloc(states.length * this.hidden * 4);
    states.forEach((h, r) => h.forEach((v, i) => bytes.writeFloatLE(v, (r * this.hidden + i) * 4)));
    await appendFile(path.join(this.dir, 'states.f32'), bytes);
    this.rows += states.length;
    const record: FeatureRecord = {
      ...fields, triggerRow: first, selectionRows: selection.map((_, i) => first + 1 + i),
      generationRows: generation.map((_, i) => first + 1 + selection.length + i), generationTargets: targets,
    };
    await appendFile(path.join(this.dir, 'index.jsonl'), JSON.stringify(record) + '\n');
    this.done.add(fields.id);
  }
}

/** meta.json, and output.f16 once (the output matrix the trainer computes logits with); returns the hidden width. */
async function writeMeta(
  out: string, modelPath: string, model: CompletionModel, options: Options, { outputMatrix }: { outputMatrix: boolean },
): Promise<number> {
  const read = await readGgufHeader(modelPath);
  if (read.kind !== 'ok') throw new Error(read.message);
  const tensor = read.header.tensors.find((t) => t.name === 'output.weight');
  if (!tensor) throw new Error(`${modelPath} has no output.weight`);
  const [hidden, vocabulary] = [tensor.ne[0]!, tensor.ne[1]!];
  const matrixFile = path.join(out, 'output.f16');
  if (outputMatrix && (!existsSync(matrixFile) || (await stat(matrixFile)).size !== hidden * vocabulary * 2)) {
    const values = decodeTensorData(await readTensorBytes(modelPath, read.header, tensor), tensor.type as WritableGgmlType, hidden * vocabulary);
    const file = await open(matrixFile, 'w');
    try {
      const chunk = Buffer.alloc(hidden * 2 * 4096);
      for (let row = 0; row < vocabulary; row += 4096) {
        const count = Math.min(4096, vocabulary - row) * hidden;
        for (let i = 0; i < count; i++) chunk.writeUInt16LE(float32ToFloat16Bits(values[row * hidden + i]!), i * 2);
        await file.write(chunk, 0, count * 2);
      }
    } finally {
      await file.close();
    }
  }
  const tokenIds = Object.fromEntries(PACK_TOKEN_TEXTS.map((text) => [text, tokenIdOf(model, text)]));
  const meta = {
    featureFormat: FEATURE_FORMAT, model: modelPath, adapter: options.adapter ?? null, source: options.source, triggerTarget: options.triggerTarget,
    selection: options.selection, evidence: options.evidence, hidden, vocabulary, controlTokens: tokenIds,
  };
  await writeFile(path.join(out, 'meta.json'), `${JSON.stringify(meta, null, 2)}\n`);
  return hidden;
}

/** Throws when `out` holds features of another format: a resumed folder must mean one thing. */
async function refuseOtherFormat(out: string): Promise<void> {
  const metaFile = path.join(out, 'meta.json');
  const indexFile = path.join(out, 'index.jsonl');
  if (!existsSync(metaFile) || !existsSync(indexFile) || (await stat(indexFile)).size === 0) return;
  const format = (JSON.parse(await readFile(metaFile, 'utf8')) as { featureFormat?: number }).featureFormat ?? 1;
  if (format !== FEATURE_FORMAT) {
    throw new Error(`${out} holds features of format ${format} (the trigger read elsewhere), this extractor writes format ${FEATURE_FORMAT}: ` +
      'pass another --out, or delete the folder');
  }
}

/** The id of a control token by its text: `<NEED>`, `<C_3>`, `</C_3>` are the roles NEED, C_3, /C_3. */
function tokenIdOf(model: CompletionModel, text: string): number {
  const id = specialId(text.slice(1, -1) as SpecialRole, model.info.special);
  if (id === undefined) throw new Error(`the model has no ${text}`);
  return id;
}

function parseOptions(): Options {
  const options = new Command()
    .option('--labels <dirs>', 'label folders, comma-separated (*.jsonl, *.jsonl.gz)',
      defaultLabelFolders())
    .option('--model <name|file>', 'the derived model (catalog name or GGUF)', DEFAULT_LABEL_MODEL)
    .option('--source <name>', `labels: ${LABEL_SOURCES.join(' | ')}`, 'shapley')
    .option('--out <dir>', 'output folder (default <cache>/control-features-<source>)')
    .option('--manifest <file>', 'corpus manifest', DEFAULT_MANIFEST)
    .option('--corpus <dir>', 'corpus folder', defaultCorpusDir())
    .option('--threads <n>', 'model threads', Number, 2)
    .option('--sequences', 'write the token sequences (sequences.jsonl) for the fine-tune instead of states: no forward passes', false)
    .option('--min-es <n>', 'τ_es for the shapley source: relabel from each record\'s decoded pool (default: the labeler\'s 50)', Number)
    .option('--trigger-target <name>', `what labels the trigger: ${TRIGGER_TARGETS.join(' | ')}`, 'verified')
    .option('--no-selection', 'skip the candidate steps: only the trigger and generation states (for training the trigger rows)')
    .option('--adapter <file>', 'read the states through this LoRA adapter GGUF (the one the server applies with the rows)')
    .option('--evidence <prompt>', `the prompt Y is read after for the fine-tune's F2 term: ${EVIDENCE_PROMPTS.join(' | ')} ` +
      '(full: every packed candidate, for every record that rebuilds, labeled or not; with --sequences, for --generation-only)', 'verified')
    .parse()
    .opts<Options>();
  if (!LABEL_SOURCES.includes(options.source)) throw new Error(`--source must be one of ${LABEL_SOURCES.join(', ')}`);
  if (!TRIGGER_TARGETS.includes(options.triggerTarget)) throw new Error(`--trigger-target must be one of ${TRIGGER_TARGETS.join(', ')}`);
  if (options.adapter && !existsSync(options.adapter)) throw new Error(`--adapter ${options.adapter}: no such file`);
  if (!EVIDENCE_PROMPTS.includes(options.evidence)) throw new Error(`--evidence must be one of ${EVIDENCE_PROMPTS.join(', ')}`);
  if (options.evidence === 'full' && !options.sequences) throw new Error('--evidence full writes token sequences for a generation-only fine-tune: add --sequences');
  if (options.minEs !== undefined && !(options.minEs >= 0 && options.minEs <= 100 && options.source === 'shapley')) {
    throw new Error('--min-es is an ES in [0, 100], for --source shapley');
  }
  return options;
}

main().catch((error: unknown) => {
  process.stderr.write(`extractFeatures: ${error instanceof Error ? error.stack ?? error.message : String(error)}\n`);
  process.exitCode = 1;
});
