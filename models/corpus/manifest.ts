/**
 * The corpus manifest: one row per .py file considered, kept or skipped with the reason.
 * Committed as gzipped TSV (models/default/corpus-manifest.tsv.gz) so it stays small and
 * diffable after `zcat`. Columns: package, path, bytes, sha256, status, reason, detail.
 * sha256 is of the file as written to the corpus (UTF-8), and only for kept files: skipped
 * files are identified by package version and path, which keeps the manifest compact.
 */
import { gunzipSync, gzipSync } from 'node:zlib';

export type ManifestStatus = 'kept' | 'skipped';

export interface ManifestRow {
  package: string;
  /** Path inside the package's repository folder, '/'-separated. */
  path: string;
  bytes: number;
  /** Hex sha256 of the corpus file; '' for skipped files. */
  sha256: string;
  status: ManifestStatus;
  /** '' for kept files. */
  reason: string;
  detail: string;
}

export const MANIFEST_COLUMNS = ['package', 'path', 'bytes', 'sha256', 'status', 'reason', 'detail'] as const;

/** Rows -> gzipped TSV (a header line first). Tabs and newlines inside fields become spaces. */
export function encodeManifest(rows: readonly ManifestRow[]): Buffer {
  const clean = (value: string) => value.replace(/[\t\r\n]/g, ' ');
  const lines = [MANIFEST_COLUMNS.join('\t')];
  for (const r of rows) {
    lines.push([r.package, r.path, String(r.bytes), r.sha256, r.status, r.reason, r.detail].map(clean).join('\t'));
  }
  return gzipSync(Buffer.from(lines.join('\n') + '\n', 'utf8'), { level: 9 });
}

/** Gzipped TSV -> rows; throws on a header it does not know. */
export function decodeManifest(gzipped: Uint8Array): ManifestRow[] {
  const lines = gunzipSync(gzipped).toString('utf8').split('\n').filter((l) => l.length > 0);
  if (lines[0] !== MANIFEST_COLUMNS.join('\t')) throw new Error(`not a corpus manifest (header ${JSON.stringify(lines[0])})`);
  return lines.slice(1).map((line) => {
    const [pkg, path, bytes, sha256, status, reason, detail] = line.split('\t');
    if (status !== 'kept' && status !== 'skipped') throw new Error(`bad manifest status in line ${JSON.stringify(line)}`);
    return { package: pkg!, path: path!, bytes: Number(bytes), sha256: sha256!, status, reason: reason ?? '', detail: detail ?? '' };
  });
}
