/**
 * The control pack of a catalog model (issue 20): create it with initial rows, or update it with
 * trained output rows and t_c. Either way the derived model is rebuilt and pinned.
 *
 *   node dist/models/controlRows/packTool.js init qwen2.5-coder-0.5b
 *   node dist/models/controlRows/packTool.js update qwen2.5-coder-0.5b --output-rows ROWS.f32 \
 *     --need-threshold 0.42 --provenance METRICS.json [--no-trained]
 *   node dist/models/controlRows/packTool.js trigger qwen2.5-coder-0.5b vocabulary
 *   node dist/models/controlRows/packTool.js weights qwen2.5-coder-0.5b q8_0
 *   node dist/models/controlRows/packTool.js variant qwen2.5-coder-0.5b --out DIR --rows ROWS.f32 \
 *     [--adapter LORA.gguf] --need-threshold 0 [--trained]
 *   node dist/models/controlRows/packTool.js adapter qwen2.5-coder-1.5b --adapter LORA.gguf --provenance METRICS.json [--out DIR]
 *
 * `adapter` writes an adapter pack (server/src/modelStore/adapterPack.ts): a LoRA for a catalog
 * model's base file as pulled, no control tokens; into models/adapters/<name>, or DIR to bench a
 * candidate first (`bench --model <name> --adapter DIR/adapter.gguf`).
 *
 * `variant` writes the committed pack with other rows (and adapter) into DIR, with its derived
 * model beside it, leaving the committed pack and the model cache as they are: how an ablation or
 * a candidate training is benched (`bench --model DIR/<derived> --adapter DIR/adapter.gguf`)
 * before anything replaces what ships.
 *
 * Initial input rows (never trained on two CPU cores: training them needs gradients through the
 * whole network, the GPU script's job): `<C_i>` reads as `<|file_sep|>` (a repository file
 * starts), `</C_i>` as `<|fim_middle|>` (now say what goes at the cursor, having read the
 * candidate), the five decision tokens as the mean embedding of ordinary tokens. Output rows
 * start at zero.
 */
import { statSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Command } from 'commander';
import { kvArray, readGgufHeader, readTensorBytes, type GgufHeader } from '../../server/src/model/gguf/ggufReader.js';
import { decodeTensorData, LlamaTokenType, type WritableGgmlType } from '../../server/src/model/gguf/ggufTypes.js';
import { FILE_SEPARATOR, FIM_MIDDLE } from '../../server/src/model/specialTokens.js';
import { ADAPTER_PACK_FORMAT, adapterPacksDir, type AdapterPack } from '../../server/src/modelStore/adapterPack.js';
import { cachedModelPath } from '../../server/src/modelStore/cacheDir.js';
import { MODEL_CATALOG } from '../../server/src/modelStore/catalog.js';
import { CONTROL_PACK_FORMAT, controlPacksDir, loadControlPack, sha256, type ControlPack, type ControlToken } from '../../server/src/modelStore/controlPack.js';
import { copyAdapter, PACK_TOKEN_TEXTS, writePack, writePackVariant, type PackRows } from './packFiles.js';

async function init(name: string): Promise<void> {
  const basePath = verifiedBase(name);
  const header = await readHeader(basePath);
  const tokens = kvArray(header, 'tokenizer.ggml.tokens') as string[];
  const types = kvArray(header, 'tokenizer.ggml.token_type') as number[];
  const free = types.flatMap((type, id) => (type === LlamaTokenType.UNUSED ? [id] : []));
  if (free.length < PACK_TOKEN_TEXTS.length) throw new Error(`${basePath} has ${free.length} padding rows, the pack needs ${PACK_TOKEN_TEXTS.length}`);
  const table: ControlToken[] = PACK_TOKEN_TEXTS.map((text, i) => ({ text, id: free[i]! }));
  const embeddings = await matrix(basePath, header, 'token_embd.weight');
  const hidden = embeddings.width;
  const rowOf = (text: string) => embeddings.row(tokens.indexOf(text));
  const mean = meanRow(embeddings, types);
  const rows: PackRows = table.map(({ text }) => {
    const input = text.startsWith('</C_') ? rowOf(FIM_MIDDLE) : text.startsWith('<C_') ? rowOf(FILE_SEPARATOR) : mean;
    return [Float32Array.from(input), new Float32Array(hidden)];
  });
  const { size } = statSync(basePath);
  const cached = cachedModelPath(name);
  if (cached.kind === 'error') throw new Error(cached.message);
  const { derivedPath, pack } = await writePack(path.join(controlPacksDir(), name), {
    format: CONTROL_PACK_FORMAT, base: { model: name, sha256: cached.entry.sha256, sizeBytes: size }, hidden, tokens: table,
    trained: false, needThreshold: 0.5, layout: 'repo-fim', matmulWeights: 'q8_0', derivedFileName: derivedName(cached.entry.fileName),
    provenance: { created: new Date().toISOString(), inputRows: 'C_i = <|file_sep|>, /C_i = <|fim_middle|>, decisions = mean of normal tokens', outputRows: 'zero' },
  }, rows, basePath);
  process.stdout.write(`wrote ${path.join(controlPacksDir(), name)} (ids ${table[0]!.id}..${table.at(-1)!.id}); derived ${derivedPath} sha256 ${pack.derived.sha256}\n`);
}

interface UpdateOptions {
  outputRows?: string;
  /** Both rows of every token (the pack's rows.f32 layout), as control_finetune.py writes them. */
  rows?: string;
  /** A LoRA adapter GGUF trained with the rows (control_finetune.py --mode lora), copied into the pack. */
  adapter?: string;
  needThreshold: number;
  provenance?: string;
  /** Commander's `--no-trained`: keep the rows without telling `auto` to run reposhapley. */
  trained: boolean;
}

async function update(name: string, options: UpdateOptions): Promise<void> {
  const basePath = verifiedBase(name);
  const packDir = path.join(controlPacksDir(), name);
  const { pack, rows } = loadControlPack(packDir);
  const newRows = await trainedRows(pack, rows, options);
  const provenance = (await readProvenance(options.provenance)) ?? pack.provenance;
  const { derived: _derived, rows: _rows, adapter: oldAdapter, ...rest } = pack;
  const adapter = options.adapter ? await copyAdapter(options.adapter, packDir) : oldAdapter;
  const result = await writePack(packDir, {
    ...rest, trained: options.trained, needThreshold: options.needThreshold, provenance, derivedFileName: pack.derived.fileName,
    ...(adapter ? { adapter } : {}),
  }, newRows, basePath);
  const state = options.trained ? 'trained rows (auto runs reposhapley)' : 'rows kept, not marked trained (auto keeps running full)';
  process.stdout.write(`updated ${packDir}: ${state}, t_c ${options.needThreshold}${adapter ? `, adapter ${adapter.file}` : ''}; ` +
    `derived ${result.derivedPath} sha256 ${result.pack.derived.sha256}\n`);
}

/** The committed pack with other rows (and adapter) in `options.out`, its derived model beside it. */
async function variant(name: string, options: UpdateOptions & { out: string }): Promise<void> {
  const basePath = verifiedBase(name);
  const committed = loadControlPack(path.join(controlPacksDir(), name));
  const provenance = await readProvenance(options.provenance);
  const result = await writePackVariant(committed, options.out, basePath, {
    rows: await trainedRows(committed.pack, committed.rows, options), needThreshold: options.needThreshold, trained: options.trained,
    ...(options.adapter ? { adapterFile: options.adapter } : {}), ...(provenance ? { provenance } : {}),
  });
  const { adapter } = result.pack;
  process.stdout.write(`wrote the variant ${path.resolve(options.out)}${adapter ? ` (adapter ${path.join(path.resolve(options.out), adapter.file)})` : ''}; ` +
    `derived ${result.derivedPath} sha256 ${result.pack.derived.sha256}\n`);
}

/** The JSON a `--provenance` file holds, to record in pack.json. */
async function readProvenance(file: string | undefined): Promise<Record<string, unknown> | undefined> {
  return file ? JSON.parse(await readFile(file, 'utf8')) as Record<string, unknown> : undefined;
}

/** The pack's rows with the trained ones in: output rows only (control_rows.py), or both (control_finetune.py). */
async function trainedRows(pack: ControlPack, rows: PackRows, options: UpdateOptions): Promise<PackRows> {
  if ((options.outputRows === undefined) === (options.rows === undefined)) throw new Error('give --output-rows or --rows, one of them');
  const file = (options.rows ?? options.outputRows)!;
  const perToken = options.rows ? 2 : 1;
  const bytes = await readFile(file);
  const expected = pack.tokens.length * perToken * pack.hidden * 4;
  if (bytes.length !== expected) throw new Error(`${file}: ${bytes.length} bytes, ${pack.tokens.length} tokens × ${perToken} rows of ${pack.hidden} float32 need ${expected}`);
  const row = (index: number) => Float32Array.from({ length: pack.hidden }, (_, i) => bytes.readFloatLE((index * pack.hidden + i) * 4));
  return rows.map(([input], t) => (perToken === 2 ? [row(2 * t), row(2 * t + 1)] : [input, row(t)]));
}

/** Declares how the trigger is read (model/reposhapleyKeys.ts), rows and everything else kept. */
async function setTrigger(name: string, trigger: string): Promise<void> {
  if (trigger !== 'pair' && trigger !== 'vocabulary') throw new Error(`the trigger is read over the "pair" or the "vocabulary", not ${JSON.stringify(trigger)}`);
  await rewritePack(name, { trigger }, `trigger read over the ${trigger}`);
}

/** Declares how the derived model stores the base's Q5_0 matrices: as Q8_0 (same values, faster), or as they are. */
async function setMatmulWeights(name: string, weights: string): Promise<void> {
  if (weights !== 'q8_0' && weights !== 'base') throw new Error(`matrices are stored as "q8_0" or as in the "base", not ${JSON.stringify(weights)}`);
  await rewritePack(name, { matmulWeights: weights === 'q8_0' ? 'q8_0' : undefined }, `matrices stored as ${weights}`);
}

/** The committed pack with `change` applied, rows and adapter kept; the derived model rebuilt and pinned. */
async function rewritePack(name: string, change: Partial<ControlPack>, what: string): Promise<void> {
  const basePath = verifiedBase(name);
  const packDir = path.join(controlPacksDir(), name);
  const { pack, rows } = loadControlPack(packDir);
  const { derived, rows: _rows, ...rest } = { ...pack, ...change };
  const result = await writePack(packDir, { ...rest, derivedFileName: derived.fileName }, rows, basePath);
  process.stdout.write(`updated ${packDir}: ${what}; derived ${result.derivedPath} sha256 ${result.pack.derived.sha256}\n`);
}

/** An adapter pack for catalog model `name`: the LoRA copied in, it and the base pinned. */
async function writeAdapterPack(name: string, options: { adapter: string; provenance?: string; out?: string }): Promise<void> {
  const entry = MODEL_CATALOG.find((candidate) => candidate.name === name);
  if (!entry) throw new Error(`${name} is not a catalog model`);
  const dir = options.out ? path.resolve(options.out) : path.join(adapterPacksDir(), name);
  const bytes = await readFile(options.adapter);
  const provenance = await readProvenance(options.provenance);
  const pack: AdapterPack = {
    format: ADAPTER_PACK_FORMAT, base: { model: name, sha256: entry.sha256, sizeBytes: entry.sizeBytes },
    adapter: { file: 'adapter.gguf', sha256: sha256(bytes) }, ...(provenance ? { provenance } : {}),
  };
  await mkdir(dir, { recursive: true });
  await writeFile(path.join(dir, 'adapter.gguf'), bytes);
  await writeFile(path.join(dir, 'adapter.json'), `${JSON.stringify(pack, null, 2)}\n`);
  process.stdout.write(`wrote the adapter pack ${dir} (adapter sha256 ${pack.adapter.sha256}, ${bytes.length} bytes)\n`);
}

function verifiedBase(name: string): string {
  const cached = cachedModelPath(name);
  if (cached.kind === 'error') throw new Error(cached.message);
  if (!cached.verified) throw new Error(`${name} is not pulled and verified: run \`reposhapley model pull ${name}\` first`);
  return cached.path;
}

function derivedName(baseFileName: string): string {
  return baseFileName.replace(/\.gguf$/, '') + '.reposhapley-control.gguf';
}

async function readHeader(file: string): Promise<GgufHeader> {
  const read = await readGgufHeader(file);
  if (read.kind !== 'ok') throw new Error(read.message);
  return read.header;
}

interface Matrix {
  width: number;
  rows: number;
  values: Float32Array;
  row(id: number): Float32Array;
}

async function matrix(file: string, header: GgufHeader, name: string): Promise<Matrix> {
  const tensor = header.tensors.find((t) => t.name === name);
  if (!tensor) throw new Error(`${file} has no ${name}`);
  const [width, rows] = [tensor.ne[0]!, tensor.ne[1]!];
  const values = decodeTensorData(await readTensorBytes(file, header, tensor), tensor.type as WritableGgmlType, width * rows);
  return { width, rows, values, row: (id) => values.subarray(id * width, (id + 1) * width) };
}

function meanRow(m: Matrix, types: readonly number[]): Float32Array {
  const sum = new Float64Array(m.width);
  let count = 0;
  for (let id = 0; id < m.rows; id++) {
    if (types[id] !== LlamaTokenType.NORMAL) continue;
    const row = m.row(id);
    for (let i = 0; i < m.width; i++) sum[i] += row[i]!;
    count++;
  }
  return Float32Array.from(sum, (v) => v / count);
}

const program = new Command('packTool');
program.command('init <name>').description('create the pack with initial rows').action((name: string) => init(name));
program.command('update <name>')
  .description('replace the rows with trained ones (and the adapter trained with them) and record t_c')
  .option('--output-rows <file>', 'trained output rows, float32, pack token order (control_rows.py)')
  .option('--rows <file>', 'trained input and output rows, the pack\'s rows.f32 layout (control_finetune.py)')
  .option('--adapter <file>', 'the LoRA adapter GGUF trained with the rows (control_finetune.py --mode lora): copied in and pinned')
  .requiredOption('--need-threshold <t>', 't_c tuned on validation packages', Number)
  .option('--provenance <file>', 'JSON recorded in pack.json (labels, training, metrics)')
  .option('--no-trained', 'keep the rows without marking the pack trained: `auto` runs full until a bench confirms them')
  .action((name: string, options: UpdateOptions) => update(name, options));
program.command('variant <name>')
  .description('write the pack with other rows (and adapter) into a folder of its own, with its derived model: for ablations')
  .requiredOption('--out <dir>', 'the folder for the variant pack and its derived model')
  .option('--output-rows <file>', 'trained output rows, float32, pack token order (control_rows.py)')
  .option('--rows <file>', 'trained input and output rows, the pack\'s rows.f32 layout (control_finetune.py)')
  .option('--adapter <file>', 'a LoRA adapter GGUF trained with the rows, copied in and pinned')
  .requiredOption('--need-threshold <t>', 't_c', Number)
  .option('--provenance <file>', 'JSON recorded in pack.json')
  .option('--trained', 'mark the rows trained (auto runs reposhapley)', false)
  .action((name: string, options: UpdateOptions & { out: string }) => variant(name, options));
program.command('adapter <name>')
  .description('write an adapter pack: a LoRA for the catalog model\'s base file, applied by `model pull` and the server, no control tokens')
  .requiredOption('--adapter <file>', 'the LoRA adapter GGUF (control_finetune.py --generation-only)')
  .option('--provenance <file>', 'JSON recorded in adapter.json (the run\'s metrics.json, its command, the bench that adopted it)')
  .option('--out <dir>', 'write it here instead of models/adapters/<name> (a candidate to bench)')
  .action((name: string, options: { adapter: string; provenance?: string; out?: string }) => writeAdapterPack(name, options));
program.command('weights <name> <storage>')
  .description('declare how the derived model stores the base\'s Q5_0 matrices: "q8_0" (the same values, multiplied faster) or "base"')
  .action((name: string, storage: string) => setMatmulWeights(name, storage));
program.command('trigger <name> <softmax>')
  .description('declare how P(NEED) is read: "pair" (Algorithm 1) or "vocabulary"; t_c must be tuned again for it')
  .action((name: string, softmax: string) => setTrigger(name, softmax));
program.parseAsync().catch((error: unknown) => {
  process.stderr.write(`packTool: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
