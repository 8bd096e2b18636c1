/** SHA-256 verification of a fetched model file: size first (cheap), then the streamed hash. */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { rm, stat } from 'node:fs/promises';
import type { CatalogEntry } from './catalog.js';
import { failure, failureFromError, formatMegabytes, type PullFailure } from './outcome.js';
import { silentProgress, type TransferProgress } from './progress.js';

/** The lower-case hex SHA-256 of a file, streamed; `onBytes` gets the running count. */
export async function sha256File(filePath: string, onBytes: (done: number) => void = () => {}, signal?: AbortSignal): Promise<string> {
  const hash = createHash('sha256');
  let done = 0;
  for await (const chunk of createReadStream(filePath, { highWaterMark: 1 << 20, signal }) as AsyncIterable<Buffer>) {
    hash.update(chunk);
    done += chunk.length;
    onBytes(done);
  }
  return hash.digest('hex');
}

/**
 * Checks `filePath` against the entry's size and SHA-256. On a mismatch the file is deleted and
 * the failure names both values; `from` says where the bytes came from.
 */
export async function verifyModelFile(
  filePath: string, entry: CatalogEntry, from: string, progress: TransferProgress = silentProgress, signal?: AbortSignal,
): Promise<{ kind: 'ok' } | PullFailure> {
  try {
    const { size } = await stat(filePath);
    if (size !== entry.sizeBytes) {
      await rm(filePath, { force: true });
      return failure('hash-mismatch', `${entry.fileName} from ${from} is ${size} bytes, expected ${entry.sizeBytes}; the file was deleted`);
    }
    progress.start(`verify sha256 (${formatMegabytes(size)})`, size);
    const got = await sha256File(filePath, (done) => progress.update(done), signal).finally(() => progress.stop());
    if (got === entry.sha256) return { kind: 'ok' };
    await rm(filePath, { force: true });
    return failure('hash-mismatch', `${entry.fileName} from ${from} has SHA-256 ${got}, expected ${entry.sha256}; the file was deleted`);
  } catch (error) {
    if (signal?.aborted) return failure('cancelled', 'cancelled while verifying');
    return failureFromError(error, 'download-failed', `verifying ${filePath}`);
  }
}
