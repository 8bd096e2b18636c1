/**
 * CLI: build the training corpus (issue 4 item 1).
 *
 *   npx tsc && nice -n 10 node dist/models/corpus/buildCorpus.js
 *
 * Fetches the standard library, every package of shared/corpus/train-packages.txt and every
 * benchmark package of shared/bench/packages.txt (apt-get download + dpkg -x, cached), runs the
 * pipeline of corpusBuilder.ts, and writes
 *   <cache>/corpus/<package>/<path>        one folder per package = one repository
 *   models/default/corpus-manifest.tsv.gz  every .py file considered, kept or skipped + reason
 *   models/default/corpus-summary.json     versions, parameters, per-package totals
 */
import { Command } from 'commander';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { defaultCacheDir, fetchCodePackage, parsePackageList } from '../../bench/src/debianPackages.js';
import { ContaminationIndex } from './contamination.js';
import { CorpusBuilder, type SourcePackage } from './corpusBuilder.js';
import { packageSource, stdlibSource } from './corpusSources.js';
import { encodeManifest, type ManifestRow } from './manifest.js';
import { CORPUS_FILTER_LIMITS, normalizedLines } from './textFilters.js';
import { REPO_ROOT } from '../../bench/src/repoPaths.js';

/** Default per-package cap: see docs/model-pipeline.md for how it was chosen. */
export const DEFAULT_MAX_PACKAGE_BYTES = 1_500_000;

interface Options {
  cache: string;
  trainList: string;
  benchList: string;
  maxPackageBytes: number;
  maxStdlibBytes: number;
  manifest: string;
  summary: string;
  only?: string;
}

export interface PackageSummary {
  name: string;
  version: string;
  files: number;
  keptFiles: number;
  keptBytes: number;
  skipped: Record<string, number>;
}

async function main(): Promise<void> {
  const options = new Command()
    .description('Build the RepoShapley training corpus from Debian packages')
    .option('--cache <dir>', 'cache root (debs, pkgs, corpus)', defaultCacheDir())
    .option('--train-list <file>', 'training package list', path.join(REPO_ROOT, '..', 'shared', 'corpus', 'train-packages.txt'))
    .option('--bench-list <file>', 'benchmark package list (decontamination)', path.join(REPO_ROOT, '..', 'shared', 'bench', 'packages.txt'))
    .option('--max-package-bytes <n>', 'kept bytes per package at most', (v) => Number(v), DEFAULT_MAX_PACKAGE_BYTES)
    .option('--max-stdlib-bytes <n>', 'kept bytes of the standard library at most', (v) => Number(v), Infinity)
    .option('--manifest <file>', 'manifest output', path.join(REPO_ROOT, 'models', 'default', 'corpus-manifest.tsv.gz'))
    .option('--summary <file>', 'summary output', path.join(REPO_ROOT, 'models', 'default', 'corpus-summary.json'))
    .option('--only <names>', 'comma-separated subset of the training packages (smoke runs; stdlib is always included)')
    .parse()
    .opts<Options>();
  const started = Date.now();
  const fetchOptions = { cacheDir: options.cache };

  const benchNames = parsePackageList(await readFile(options.benchList, 'utf8'));
  let trainNames = parsePackageList(await readFile(options.trainList, 'utf8'));
  const leaked = trainNames.filter((n) => benchNames.includes(n));
  if (leaked.length > 0) throw new Error(`benchmark packages in the training list: ${leaked.join(', ')}`);
  if (options.only) {
    const only = new Set(options.only.split(',').map((s) => s.trim()));
    trainNames = trainNames.filter((n) => only.has(n));
  }

  const contamination = new ContaminationIndex();
  const benchmark: Array<{ name: string; version: string; files: number }> = [];
  for (const name of benchNames) {
    const source = await packageSource(await fetchCodePackage(name, fetchOptions));
    for (const file of source.files) {
      contamination.addBenchmarkFile(`${name}:${file}`, normalizedLines(new TextDecoder().decode(await source.readFile(file))));
    }
    benchmark.push({ name, version: source.version, files: source.files.length });
  }
  log(`benchmark: ${benchNames.length} packages, ${benchmark.reduce((a, b) => a + b.files, 0)} files, ${contamination.size} distinct 10-line windows`);

  const builder = new CorpusBuilder(contamination, { maxPackageBytes: options.maxPackageBytes, maxStdlibBytes: options.maxStdlibBytes });
  const corpusDir = path.join(options.cache, 'corpus');
  const partial = `${corpusDir}.partial`;
  await rm(partial, { recursive: true, force: true });
  const rows: ManifestRow[] = [];
  const summaries: PackageSummary[] = [];
  const sources: Array<() => Promise<SourcePackage>> = [
    () => stdlibSource(fetchOptions),
    ...trainNames.map((name) => async () => packageSource(await fetchCodePackage(name, fetchOptions))),
  ];
  for (const load of sources) {
    const source = await load();
    const result = await builder.addPackage(source);
    for (const file of result.kept) {
      const target = path.join(partial, file.package, ...file.path.split('/'));
      await mkdir(path.dirname(target), { recursive: true });
      await writeFile(target, file.text);
    }
    rows.push(...result.rows);
    const summary = summarize(source, result.rows);
    summaries.push(summary);
    log(`${summary.name.padEnd(28)} ${String(summary.keptFiles).padStart(5)}/${String(summary.files).padEnd(5)} files ${(summary.keptBytes / 1e6).toFixed(2).padStart(6)} MB  ${formatSkips(summary.skipped)}`);
  }
  await rm(corpusDir, { recursive: true, force: true });
  await rename(partial, corpusDir);

  const manifest = encodeManifest(rows);
  await mkdir(path.dirname(options.manifest), { recursive: true });
  await writeFile(options.manifest, manifest);
  const totals = totalsOf(summaries);
  await writeFile(options.summary, JSON.stringify({
    description: 'RepoShapley training corpus (issue 4 item 1); rows per file in corpus-manifest.tsv.gz',
    parameters: { ...CORPUS_FILTER_LIMITS, maxPackageBytes: options.maxPackageBytes, maxStdlibBytes: Number.isFinite(options.maxStdlibBytes) ? options.maxStdlibBytes : null, nearDuplicateHammingDistance: 3, decontaminationWindowLines: 10 },
    benchmark,
    totals,
    packages: summaries,
  }, null, 1) + '\n');
  log(`total: ${totals.keptFiles}/${totals.files} files kept, ${(totals.keptBytes / 1e6).toFixed(1)} MB in ${summaries.length} repositories; skipped ${formatSkips(totals.skipped)}`);
  log(`corpus: ${corpusDir}; manifest: ${options.manifest} (${(manifest.length / 1024).toFixed(0)} KiB); ${((Date.now() - started) / 1000).toFixed(0)} s`);
}

function summarize(source: SourcePackage, rows: readonly ManifestRow[]): PackageSummary {
  const skipped: Record<string, number> = {};
  let keptFiles = 0;
  let keptBytes = 0;
  for (const row of rows) {
    if (row.status === 'kept') { keptFiles++; keptBytes += row.bytes; } else skipped[row.reason] = (skipped[row.reason] ?? 0) + 1;
  }
  return { name: source.name, version: source.version, files: rows.length, keptFiles, keptBytes, skipped };
}

function totalsOf(summaries: readonly PackageSummary[]): Omit<PackageSummary, 'name' | 'version'> {
  const skipped: Record<string, number> = {};
  for (const s of summaries) for (const [reason, n] of Object.entries(s.skipped)) skipped[reason] = (skipped[reason] ?? 0) + n;
  return {
    files: summaries.reduce((a, s) => a + s.files, 0),
    keptFiles: summaries.reduce((a, s) => a + s.keptFiles, 0),
    keptBytes: summaries.reduce((a, s) => a + s.keptBytes, 0),
    skipped,
  };
}

function formatSkips(skipped: Record<string, number>): string {
  return Object.entries(skipped).sort().map(([reason, n]) => `${reason}=${n}`).join(' ');
}

function log(line: string): void {
  process.stdout.write(line + '\n');
}

main().catch((error: unknown) => {
  process.stderr.write(`buildCorpus: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
