/**
 * The ChunkShapley labeler over the training corpus (RepoShapley Appendix A.3–A.4): for each
 * repository (package), the same seeded targets the data builder trains on, retrieved and packed
 * as the server does, labeled by runChunkShapley with any GGUF as the frozen generator G.
 * One JSON line per instance. Resumable (finished ids are skipped), shardable so machines can
 * split one corpus (`--shard i/N` takes the ids whose hash is i mod N).
 *
 *   npx tsc && node dist/models/labeling/labelCorpus.js --model qwen2.5-coder-0.5b|M.gguf [--shard 0/1] [--limit N]
 *
 * The prompts are the model's own layout (chooseLayout, as the server picks it) unless --layout
 * names one; --budgets sets the in-file and chunk token budgets. Both go into every record, so
 * the distillation builder rebuilds exactly the prompts that were labeled.
 */
import { existsSync } from 'node:fs';
import { appendFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { SingleBar } from 'cli-progress';
import { listOf, promptBudgets } from '../../bench/src/cliNumbers.js';
import { defaultCacheDir } from '../../bench/src/debianPackages.js';
import { Command, Option } from 'commander';
import { DEFAULT_SETTINGS, type PromptBudgets } from '../../shared/settings.js';
import { findBundledModel, modelFileFromArgument } from '../../server/src/completion/modelChoice.js';
import { controlPacksDir } from '../../server/src/modelStore/controlPack.js';
import { chooseLayout, layoutByName, type LayoutName, type PromptLayout } from '../../server/src/prompt/layouts.js';
import { ContextOverflowError, type CompletionModel, type ModelSession } from '../../server/src/model/completionModel.js';
import { loadLlamaModel } from '../../server/src/model/llama/loadLlamaModel.js';
import { widenedModel } from '../../server/src/modelStore/widenedModel.js';
import { LineTokenizer } from '../../server/src/prompt/lineTokenizer.js';
import { fnv1a } from '../../server/src/util/hashing.js';
import { createStreamLogger } from '../../server/src/util/logger.js';
import { Corpus, DEFAULT_MANIFEST, defaultCorpusDir, type CorpusPackage } from '../corpus/corpusReader.js';
import { isValidationPackage } from '../corpus/splits.js';
import { openRepository } from '../data/repositoryTools.js';
import { drawTargets, TARGET_KINDS, type Target, type TargetKind } from '../data/targets.js';
import { prepareTarget, targetFits, type PromptSettings, type RepositoryTools } from '../data/trainingSequences.js';
import { DEFAULT_CHUNKSHAPLEY_OPTIONS, runChunkShapley, type ChunkShapleyResult } from './chunkShapley.js';
import { labelRecord, readLabelFolder, type LabelGenerator, type LabelRecord } from './labelRecord.js';
import { instanceId, labelUniverse } from './labelUniverse.js';

interface Options {
  model?: string;
  manifest: string;
  corpus: string;
  out: string;
  shard: string;
  targetsPerPackage: number;
  /** Targets per validation package (t_c is tuned on those alone); default targetsPerPackage. */
  validationTargetsPerPackage?: number;
  /** Label the validation packages before the training ones. */
  validationFirst?: boolean;
  only?: string;
  /** Label only these kinds of target (the others of the same draw are left for later). */
  kinds: TargetKind[];
  limit: number;
  threads: number;
  layout?: LayoutName;
  budgets?: PromptBudgets;
}

/** The labeler's share of target kinds (the bench weighs line and API tasks most). */
const MIX = { line: 0.4, api: 0.4, block: 0.2 };

async function main(): Promise<void> {
  const options = parseOptions();
  const [shardIndex, shardCount] = parseShard(options.shard);
  const basePath = resolveModelPath(options.model);
  // The same generator, read about twice as fast (server/src/modelStore/widenedModel.ts).
  const { path: modelPath, widened } = await widenedModel(basePath);
  const loaded = await loadLlamaModel({ path: modelPath, threads: options.threads, gpuLayers: 'auto' }, createStreamLogger('label', 'warn'));
  if (loaded.kind !== 'ok') throw new Error(loaded.message);
  const model = loaded.model;
  await mkdir(options.out, { recursive: true });
  const outFile = path.join(options.out, `labels.shard-${shardIndex}-of-${shardCount}.jsonl`);
  const committed = committedLabelsDir(options.model);
  const done = new Set([...await finishedIds(options.out), ...(committed ? await finishedIds(committed) : [])]);
  const corpus = await Corpus.open(options.manifest, options.corpus);
  const chosen = corpus.packages.filter((p) => !options.only || options.only.split(',').includes(p.name));
  // Validation first, each group in corpus order (the sort is stable).
  const packages = options.validationFirst
    ? [...chosen].sort((a, b) => Number(isValidationPackage(b.name)) - Number(isValidationPackage(a.name)))
    : chosen;
  const layout = options.layout ? layoutByName(options.layout, model.info.echoLines) : chooseLayout(model.info);
  const generator = { model: path.basename(basePath), ...(widened ? { matmulWeights: 'q8_0' as const } : {}), layout: layout.name, budgets: options.budgets ?? DEFAULT_SETTINGS.budgets };
  process.stderr.write(`generator ${generator.model}, layout ${generator.layout}, budgets ${JSON.stringify(generator.budgets)}\n`);
  const run = new LabelRun(model, await model.createSession(), layout, generator, outFile, done, options, (id) => fnv1a(id) % shardCount === shardIndex);
  const share = options.kinds.reduce((sum, kind) => sum + MIX[kind], 0);
  const estimate = Math.ceil((packages.length * options.targetsPerPackage * share) / shardCount);
  run.bar.start(Math.min(options.limit, estimate), 0, { labeled: 0, discarded: 0 });
  try {
    for (const pkg of packages) {
      if (run.count >= options.limit) break;
      await run.labelPackage(corpus, pkg);
    }
  } finally {
    run.bar.stop();
    await model.dispose();
  }
  process.stderr.write(`labeled ${run.labeled}, discarded ${run.discarded}, failed ${run.failed}, skipped ${done.size} already done -> ${outFile}\n`);
}

/** One labeling run: the model session, the output file and the counters. */
class LabelRun {
  labeled = 0;
  discarded = 0;
  /** Instances that could not be labeled (ContextOverflowError); retried by the next run. */
  failed = 0;
  readonly bar = new SingleBar({
    format: 'labeling [{bar}] {value}/{total} | {labeled} labeled, {discarded} discarded | ETA {eta_formatted}',
    stream: process.stderr,
  });
  private readonly tokenizer: LineTokenizer;
  private readonly prompt: PromptSettings;

  constructor(
    private readonly model: CompletionModel, private readonly session: ModelSession, private readonly layout: PromptLayout,
    private readonly generator: LabelGenerator, private readonly outFile: string,
    private readonly done: Set<string>, private readonly options: Options, private readonly isMine: (id: string) => boolean,
  ) {
    this.tokenizer = new LineTokenizer(model);
    this.prompt = {
      contextSize: model.info.contextSize, settings: { ...DEFAULT_SETTINGS, budgets: generator.budgets },
      special: model.info.special, echoLines: model.info.echoLines, layout,
    };
  }

  get count(): number {
    return this.labeled + this.discarded;
  }

  async labelPackage(corpus: Corpus, pkg: CorpusPackage): Promise<void> {
    const repo = await openRepository(path.join(corpus.dir, pkg.name), DEFAULT_SETTINGS, this.tokenizer);
    try {
      const count = isValidationPackage(pkg.name)
        ? this.options.validationTargetsPerPackage ?? this.options.targetsPerPackage
        : this.options.targetsPerPackage;
      const drawn = drawTargets(repo.index, pkg.name, count, MIX, repo.parser);
      const fits = (target: Target) => targetFits(this.tokenizer.text(target.text), DEFAULT_SETTINGS.maxTokens);
      for (const target of labelUniverse(drawn, count, MIX, fits, this.options.kinds)) {
        if (this.count >= this.options.limit) break;
        await this.labelTarget(repo, pkg.name, target);
      }
    } finally {
      repo.dispose();
    }
  }

  /** Labels one target of the universe unless it is another shard's or already done. */
  private async labelTarget(repo: RepositoryTools, repository: string, target: Target): Promise<void> {
    const id = instanceId(repository, target);
    if (!this.isMine(id) || this.done.has(id)) return;
    const file = repo.index.file(target.relPath)!;
    const prepared = await prepareTarget(repo, this.prompt, file.absPath, file.text, target);
    if (!prepared) throw new Error(`${id}: prepareTarget refused a target that fits`);
    const started = performance.now();
    const generation = { maxTokens: DEFAULT_SETTINGS.maxTokens, singleLine: target.kind !== 'block' };
    let result: ChunkShapleyResult;
    try {
      const input = { plan: prepared.plan, target: prepared.y, special: this.model.info.special, layout: this.layout };
      result = await runChunkShapley(this.session, input, { ...DEFAULT_CHUNKSHAPLEY_OPTIONS, generation });
    } catch (error) {
      // One instance the model cannot take (a prompt over its context) must not end a run of
      // thousands; it is not recorded, so a later run with a fixed budget labels it.
      if (!(error instanceof ContextOverflowError)) throw error;
      this.failed++;
      process.stderr.write(`\n${id}: not labeled: ${error.message}\n`);
      return;
    }
    const record: LabelRecord = labelRecord({
      id, repository, split: isValidationPackage(repository) ? 'val' : 'train', target, prepared, result,
      generator: this.generator, totalMs: performance.now() - started,
    });
    await appendFile(this.outFile, JSON.stringify(record) + '\n');
    if (result.label.kind === 'label') this.labeled++;
    else this.discarded++;
    this.bar.increment(1, { labeled: this.labeled, discarded: this.discarded });
  }
}

/**
 * Ids already labeled in any shard file of a folder (the output folder, and the labels committed
 * with the model's control pack), so a corpus labeled as one shard
 * can be finished by several processes with `--shard i/N` (or the other way round) without
 * labeling an id twice.
 */
async function finishedIds(dir: string): Promise<Set<string>> {
  return new Set((await readLabelFolder(dir)).map((record) => record.id));
}

/** A GGUF path, or a catalog name resolved to its pulled file; the bundled model when none is given. */
function resolveModelPath(value: string | undefined): string {
  if (value === undefined) {
    const bundled = findBundledModel();
    if (!bundled) throw new Error('no model: pass --model PATH or a catalog name (the bundled model is used when present)');
    return bundled;
  }
  return modelFileFromArgument(value);
}

/** The labels committed with a catalog model's control pack (models/control/NAME/labels), if any. */
function committedLabelsDir(model: string | undefined): string | undefined {
  if (!model || existsSync(model)) return undefined;
  const dir = path.join(controlPacksDir(), model, 'labels');
  return existsSync(dir) ? dir : undefined;
}

function parseShard(spec: string): [number, number] {
  const match = /^(\d+)\/(\d+)$/.exec(spec);
  const [index, count] = match ? [Number(match[1]), Number(match[2])] : [NaN, NaN];
  if (!(count >= 1 && index >= 0 && index < count)) throw new Error(`--shard wants i/N with 0 <= i < N, got ${spec}`);
  return [index, count];
}

function parseOptions(): Options {
  return new Command()
    .option('--model <gguf>', 'frozen generator G (default: the bundled model)')
    .option('--manifest <file>', 'corpus manifest', DEFAULT_MANIFEST)
    .option('--corpus <dir>', 'corpus folder', defaultCorpusDir())
    .option('--out <dir>', 'output folder', path.join(defaultCacheDir(), 'labels'))
    .option('--shard <i/N>', 'label the ids whose hash is i mod N', '0/1')
    .option('--targets-per-package <n>', 'targets per repository', (v) => Number(v), 40)
    .option('--validation-targets-per-package <n>', 'targets per validation package (default: --targets-per-package)', (v) => Number(v))
    .option('--validation-first', 'label the validation packages before the training ones')
    .option('--only <names>', 'comma-separated packages')
    .option('--kinds <list>', 'comma-separated target kinds to label (line, api, block); the draw stays the full mix\'s', listOf(TARGET_KINDS, 'kinds'), [...TARGET_KINDS])
    .option('--limit <n>', 'stop after n instances this run', (v) => Number(v), Number.POSITIVE_INFINITY)
    .option('--threads <n>', 'model threads', (v) => Number(v), 2)
    .addOption(new Option('--layout <name>', 'prompt layout (default: the one the server picks for the model)').choices(['reposhapley', 'repo-fim', 'repo-fim-line', 'plain-fim']))
    .option('--budgets <p,s,c>', 'prefix, suffix and chunk token budgets (default: the server\'s)', promptBudgets)
    .parse()
    .opts<Options>();
}

await main();
