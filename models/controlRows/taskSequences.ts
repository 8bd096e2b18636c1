/**
 * Data for a generation-only fine-tune in any language the bench reads (issue 51), with no labels
 * and no model calls: the bench's line and API tasks drawn from *training* repositories (Debian
 * packages of a committed list, never a bench or validation package), each written as the
 * sequences extractFeatures --sequences --evidence full writes for a labeled record:
 *   trigger + generation   the no-retrieval prompt through the middle token (what `none` sends)
 *   evidence               the `full` policy's prompt, every packed candidate (absent when none packed)
 *   y, end                 the task's target and the token that ends the middle
 * control_finetune.py --generation-only --completion-after evidence reads Y after `evidence` where
 * there is one, else after the no-retrieval prompt. The prompts are the server's own (the bench's
 * task builder, then trainingSequences.prepareTarget and the model's layout), so training bytes are
 * inference bytes. Runs append to one folder (one run per language and split), and resume.
 * Each row lists the target's evidence-only identifiers (trainingSequences.evidenceOnlyIdentifiers);
 * `--evidence-only` writes only the tasks that have one: those `none` cannot complete from the file
 * alone and `full` can by copying, the gap issue 51's bar measures.
 *
 *   node dist/models/controlRows/taskSequences.js --language rust --package-list models/controlRows/task-packages/rust-train.txt \
 *     --split train --tasks api --limit 200 --out DIR
 */
import { readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Command, Option } from 'commander';
import { BENCH_LANGUAGES, type BenchLanguageId } from '../../bench/src/benchLanguages.js';
import { nonNegativeInt, positiveInt } from '../../bench/src/cliNumbers.js';
import { parsePackageList } from '../../bench/src/debianPackages.js';
import { loadProbeModel, taskTypesOf, visitTasks, type ProbeModel } from '../../bench/src/modelProbes.js';
import { createQuietProgress } from '../../bench/src/progress.js';
import { fetchRepositories } from '../../bench/src/runBench.js';
import { buildTasks } from '../../bench/src/tasks/buildTasks.js';
import { DEFAULT_LABEL_MODEL } from '../labeling/rebuildInstance.js';
import { resolveDerivedModel } from './derivedModel.js';
import { SequenceWriter } from './sequenceFile.js';
import { refuseHeldOutPackages, taskSequences } from './taskInstances.js';

interface Options {
  language: BenchLanguageId;
  packageList: string;
  split: 'train' | 'val';
  tasks: string;
  limit: number;
  seed: number;
  perFileCap: number;
  evidenceOnly: boolean;
  model: string;
  out: string;
}

async function main(): Promise<void> {
  const options = parseOptions();
  const packages = parsePackageList(readFileSync(options.packageList, 'utf8'));
  refuseHeldOutPackages(packages, options.split);
  await mkdir(options.out, { recursive: true });
  const writer = await SequenceWriter.open(options.out);
  const probe = await loadProbeModel(resolveDerivedModel(options.model), 1, 'task-sequences');
  await writeMeta(options, probe);
  const repositories = await fetchRepositories({ packages, language: options.language }, createQuietProgress());
  const { tasks } = await buildTasks(repositories, {
    types: taskTypesOf(options.tasks), limit: options.limit, seed: options.seed, perFileCap: options.perFileCap,
  });
  const counts = { written: 0, present: 0, tooLong: 0, noEvidenceOnly: 0 };
  await visitTasks(probe, repositories, tasks, `${options.language} ${options.split}`, async (task, repo) => {
    const id = `${options.language}:${task.id}`;
    if (writer.done.has(id)) { counts.present++; return; }
    const sequences = await taskSequences(task, id, options.split, repo, probe);
    if (!sequences) { counts.tooLong++; return; }
    if (options.evidenceOnly && sequences.fields.evidenceOnly?.length === 0) { counts.noEvidenceOnly++; return; }
    await writer.add(sequences);
    counts.written++;
  });
  process.stderr.write(`${JSON.stringify({ tasks: tasks.length, ...counts })}\nsequences -> ${path.join(options.out, 'sequences.jsonl')}\n`);
}

/** meta.json: `evidence: full`, so the trainer takes these only with --generation-only. */
async function writeMeta(options: Options, probe: ProbeModel): Promise<void> {
  const meta = { source: 'tasks', evidence: 'full', model: probe.path, contextSize: probe.model.info.contextSize };
  await writeFile(path.join(options.out, 'meta.json'), `${JSON.stringify(meta, null, 2)}\n`);
}

function parseOptions(): Options {
  return new Command('taskSequences')
    .addOption(new Option('--language <id>', 'language of the packages').choices(Object.keys(BENCH_LANGUAGES)).makeOptionMandatory())
    .requiredOption('--package-list <file>', 'training (or validation) packages, one per line (models/controlRows/task-packages/)')
    .addOption(new Option('--split <split>', 'the split the instances belong to').choices(['train', 'val']).default('train'))
    .option('--tasks <list>', 'task types', 'line,api')
    .option('--limit <n>', 'tasks in total (split over types, then packages, as the bench does)', positiveInt, 100)
    .option('--seed <n>', 'task sampling seed', nonNegativeInt, 1)
    .option('--per-file-cap <n>', 'most tasks of one type from one file', positiveInt, 3)
    .option('--evidence-only', 'only tasks whose target names an identifier that a packed candidate holds and the file does not', false)
    .option('--model <name|file>', 'the model whose tokenizer and layout the prompts are in (the derived 0.5B)', DEFAULT_LABEL_MODEL)
    .requiredOption('--out <dir>', 'the sequences folder (appended to; a run resumes)')
    .parse()
    .opts<Options>();
}

main().catch((error: unknown) => {
  process.stderr.write(`taskSequences: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
