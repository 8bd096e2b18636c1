/**
 * The corpus pipeline on files already read: A.2 path and content filters, decontamination
 * against the benchmark, exact and near-duplicate removal, then a per-package size cap so that
 * giant packages do not dominate (issue 4: sample by package, not by byte). Pure apart from the
 * `readFile` callback, so it is tested on in-memory trees.
 */
import { createHash } from 'node:crypto';
import { ContaminationIndex } from './contamination.js';
import { isTestPath, judgeCorpusPath } from './corpusPaths.js';
import type { ManifestRow } from './manifest.js';
import { NearDuplicateIndex, simhash, type Fingerprint } from './simhash.js';
import { checkCorpusFile, normalizedLines, CORPUS_FILTER_LIMITS, type CorpusFilterLimits } from './textFilters.js';

/** One repository's worth of files: a Debian package or the standard library. */
export interface SourcePackage {
  name: string;
  version: string;
  /** Whether the standard-library exclusions apply. */
  stdlib: boolean;
  /** Repository-relative .py paths, '/'-separated. */
  files: readonly string[];
  readFile(relPath: string): Promise<Uint8Array>;
}

export interface CorpusOptions {
  limits?: CorpusFilterLimits;
  /** Kept bytes per package at most (the cap keeps whole directories, library code before tests). */
  maxPackageBytes: number;
  /** The cap for the standard library, which is some sixty libraries in one tree (default: none). */
  maxStdlibBytes?: number;
  /** SimHash Hamming distance at or below which two files are near-duplicates (A.2: 3). */
  nearDuplicateDistance?: number;
}

/** A kept file, with its text as written to the corpus. */
export interface KeptFile {
  package: string;
  path: string;
  text: string;
}

export interface PackageResult {
  rows: ManifestRow[];
  kept: KeptFile[];
}

/**
 * Runs packages through the pipeline one at a time; earlier packages win duplicates, so the
 * order of {@link addPackage} calls (standard library first, then the list's order) is part
 * of the definition of the corpus.
 */
export class CorpusBuilder {
  private readonly exact = new Map<string, string>();
  private readonly near: NearDuplicateIndex<string>;
  private readonly limits: CorpusFilterLimits;

  constructor(private readonly contamination: ContaminationIndex, private readonly options: CorpusOptions) {
    this.limits = options.limits ?? CORPUS_FILTER_LIMITS;
    this.near = new NearDuplicateIndex(options.nearDuplicateDistance ?? 3);
  }

  async addPackage(source: SourcePackage): Promise<PackageResult> {
    const local: Dedup = { exact: new Map(), near: new NearDuplicateIndex<string>(this.near.maxDistance) };
    const rows: ManifestRow[] = [];
    const candidates: Candidate[] = [];
    for (const path of [...source.files].sort()) {
      const outcome = await this.screen(source, path, local);
      if ('reason' in outcome) rows.push(skipped(source.name, path, outcome.bytes, outcome.reason, outcome.detail));
      else candidates.push(outcome);
    }
    const kept: KeptFile[] = [];
    const cap = source.stdlib ? (this.options.maxStdlibBytes ?? Infinity) : this.options.maxPackageBytes;
    for (const c of capPackage(candidates, cap)) {
      if (!c.keep) {
        rows.push(skipped(source.name, c.path, c.bytes, 'package-cap', `package over ${cap} bytes`));
        continue;
      }
      rows.push({ package: source.name, path: c.path, bytes: c.bytes, sha256: c.sha256, status: 'kept', reason: '', detail: '' });
      kept.push({ package: source.name, path: c.path, text: c.text });
      // Only files that survive the cap are originals that later copies are duplicates of.
      const label = `${source.name}:${c.path}`;
      this.exact.set(c.key, label);
      this.near.add(c.fingerprint, label);
    }
    return { rows: rows.sort(byPath), kept: kept.sort(byPath) };
  }

  /** One file through path rules, A.2 filters, decontamination and dedup (this package's and earlier ones'). */
  private async screen(source: SourcePackage, path: string, local: Dedup): Promise<Candidate | Skip> {
    const verdict = judgeCorpusPath(path, { stdlib: source.stdlib });
    if (verdict) return { bytes: 0, ...verdict };
    const bytes = await source.readFile(path);
    const check = checkCorpusFile(bytes, this.limits);
    if (check.kind === 'skip') return { bytes: bytes.length, reason: check.reason, detail: check.detail };
    const lines = normalizedLines(check.text);
    const overlap = this.contamination.findOverlap(lines);
    if (overlap) return { bytes: bytes.length, reason: 'contaminated', detail: `shares normalized lines ${overlap.line}..${overlap.line + 9} with ${overlap.label}` };
    const key = createHash('sha256').update(lines.join('\n')).digest('hex');
    const exactOf = this.exact.get(key) ?? local.exact.get(key);
    if (exactOf) return { bytes: bytes.length, reason: 'duplicate', detail: `same normalized text as ${exactOf}` };
    const fingerprint = simhash(lines);
    const nearOf = this.near.find(fingerprint) ?? local.near.find(fingerprint);
    if (nearOf) return { bytes: bytes.length, reason: 'near-duplicate', detail: `SimHash within ${this.near.maxDistance} bits of ${nearOf}` };
    const label = `${source.name}:${path}`;
    local.exact.set(key, label);
    local.near.add(fingerprint, label);
    const encoded = Buffer.from(check.text, 'utf8');
    return { path, text: check.text, sha256: createHash('sha256').update(encoded).digest('hex'), bytes: encoded.length, key, fingerprint };
  }
}

interface Dedup {
  exact: Map<string, string>;
  near: NearDuplicateIndex<string>;
}

/** A file that passed screening, before the cap. `key` is the sha256 of its normalized text. */
interface Candidate {
  path: string;
  text: string;
  sha256: string;
  bytes: number;
  key: string;
  fingerprint: Fingerprint;
}

interface Skip {
  bytes: number;
  reason: string;
  detail: string;
}

function skipped(pkg: string, path: string, bytes: number, reason: string, detail: string): ManifestRow {
  return { package: pkg, path, bytes, sha256: '', status: 'skipped', reason, detail };
}

function byPath(a: { path: string }, b: { path: string }): number {
  return a.path < b.path ? -1 : a.path > b.path ? 1 : 0;
}

/**
 * Which files survive the per-package cap. Library code comes before tests; within each,
 * directories are taken whole in a fixed pseudo-random order (hash of the directory), so the
 * kept part of a giant package is a set of complete subpackages, as a smaller repository
 * would be, and not a sprinkling of files whose imports point nowhere.
 */
export function capPackage<T extends { path: string; bytes: number }>(files: readonly T[], maxBytes: number): Array<T & { keep: boolean }> {
  const order = [...files].sort((a, b) => compareKeys(capKey(a.path), capKey(b.path)));
  let total = 0;
  let full = false;
  return order.map((file) => {
    // Stop at the first file that does not fit: skipping it and taking smaller ones after it
    // would cut holes into directories.
    full ||= total > 0 && total + file.bytes > maxBytes;
    if (!full) total += file.bytes;
    return { ...file, keep: !full };
  });
}

function capKey(path: string): [number, string, string] {
  const dir = path.includes('/') ? path.slice(0, path.lastIndexOf('/')) : '';
  return [isTestPath(path) ? 1 : 0, createHash('sha1').update(dir).digest('hex').slice(0, 8), path];
}

function compareKeys(a: [number, string, string], b: [number, string, string]): number {
  if (a[0] !== b[0]) return a[0] - b[0];
  if (a[1] !== b[1]) return a[1] < b[1] ? -1 : 1;
  return a[2] < b[2] ? -1 : a[2] > b[2] ? 1 : 0;
}
