/**
 * The mark of a verified cache file: `FILE.sha256.json` holding the hash it was verified
 * against and the size and mtime it had then. Reading it is a stat and a small read, so the
 * server can trust a 500 MB model at start-up without hashing it again.
 */
import { readFileSync, statSync } from 'node:fs';
import { rename, rm, stat, writeFile } from 'node:fs/promises';

/** What the sidecar records. */
export interface VerifiedMark {
  sha256: string;
  size: number;
  mtimeMs: number;
}

/** Where the sidecar of `filePath` lives. */
export function sidecarPath(filePath: string): string {
  return `${filePath}.sha256.json`;
}

/**
 * True when `filePath` exists and its sidecar says it hashed to `sha256` at its current size and
 * mtime. Synchronous and cheap: two stats and one small read. Anything unreadable counts as false.
 */
export function hasVerifiedMark(filePath: string, sha256: string): boolean {
  return verifiedHash(filePath) === sha256;
}

/**
 * The hash `filePath` was verified against, when its sidecar still describes it (same size and
 * mtime); undefined when there is no mark, it is unreadable, or the file changed since.
 */
export function verifiedHash(filePath: string): string | undefined {
  try {
    const mark = JSON.parse(readFileSync(sidecarPath(filePath), 'utf8')) as Partial<VerifiedMark>;
    const stats = statSync(filePath);
    const current = typeof mark.sha256 === 'string' && mark.size === stats.size && mark.mtimeMs === stats.mtimeMs;
    return current ? mark.sha256 : undefined;
  } catch {
    return undefined;
  }
}

/** Records that `filePath`, as it is now, hashed to `sha256` (written atomically). */
export async function writeVerifiedMark(filePath: string, sha256: string): Promise<void> {
  const stats = await stat(filePath);
  const mark: VerifiedMark = { sha256, size: stats.size, mtimeMs: stats.mtimeMs };
  const target = sidecarPath(filePath);
  await writeFile(`${target}.tmp`, `${JSON.stringify(mark)}\n`);
  await rename(`${target}.tmp`, target);
}

/** Removes the sidecar (before a file is replaced or deleted). */
export async function removeVerifiedMark(filePath: string): Promise<void> {
  await rm(sidecarPath(filePath), { force: true });
}
