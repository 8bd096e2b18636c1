/**
 * Reads a built corpus: the committed manifest names the kept files, the cache folder holds
 * them (`<cache>/corpus/<package>/<path>`). Used by the tokenizer trainer and the data builder.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { defaultCacheDir } from '../../bench/src/debianPackages.js';
import { decodeManifest, type ManifestRow } from './manifest.js';
import { REPO_ROOT } from '../../bench/src/repoPaths.js';

/** Where buildCorpus writes the manifest (from dist/, three levels up is the repository). */
export const DEFAULT_MANIFEST = path.join(REPO_ROOT, 'models', 'default', 'corpus-manifest.tsv.gz');
export const defaultCorpusDir = (): string => path.join(defaultCacheDir(), 'corpus');

/** One repository of the corpus: its kept files, in manifest (path) order. */
export interface CorpusPackage {
  name: string;
  files: ManifestRow[];
}

export class Corpus {
  private constructor(readonly dir: string, readonly packages: CorpusPackage[]) {}

  /** Open the corpus of a manifest; the kept files must be in `dir` (run buildCorpus first). */
  static async open(manifestPath = DEFAULT_MANIFEST, dir = defaultCorpusDir()): Promise<Corpus> {
    const rows = decodeManifest(await readFile(manifestPath));
    const byPackage = new Map<string, ManifestRow[]>();
    for (const row of rows) {
      if (row.status !== 'kept') continue;
      let list = byPackage.get(row.package);
      if (!list) byPackage.set(row.package, (list = []));
      list.push(row);
    }
    return new Corpus(dir, [...byPackage].map(([name, files]) => ({ name, files })));
  }

  filePath(row: Pick<ManifestRow, 'package' | 'path'>): string {
    return path.join(this.dir, row.package, ...row.path.split('/'));
  }

  async readText(row: Pick<ManifestRow, 'package' | 'path'>): Promise<string> {
    try {
      return await readFile(this.filePath(row), 'utf8');
    } catch (error) {
      throw new Error(`corpus file ${row.package}/${row.path} is missing from ${this.dir}: run buildCorpus first`, { cause: error });
    }
  }
}
