/**
 * The UrlDownloader adapter over node-llama-cpp's `createModelDownloader` (ipull underneath:
 * parallel ranged requests, progress kept in `FILE.ipull` next to the target, resumed by the
 * next attempt, renamed to FILE when complete).
 */
import { stat, truncate } from 'node:fs/promises';
import { createModelDownloader, type ModelDownloader } from 'node-llama-cpp';
import type { UrlDownloadRequest, UrlDownloadResult } from '../../modelStore/urlDownloadPort.js';

/** Resolves with `work`, or with undefined as soon as `signal` aborts (work is left to finish). */
function unlessAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T | undefined> {
  if (signal.aborted) return Promise.resolve(undefined);
  return new Promise((resolve, reject) => {
    const onAbort = () => resolve(undefined);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

function isDiskFull(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ENOSPC' || code === 'EDQUOT' || /ENOSPC|no space left/i.test(String(error));
}

/**
 * ipull keeps its progress record in the partial file, after the data, and cuts it off when the
 * download finishes; on a loaded machine a progress save queued before the finish can land after
 * that cut, and the renamed file then ends with the record (a CI run under load once got 63 bytes
 * more than the 168,160 served; ipull's code, read, allows this order, which is the likely cause).
 * The data before it is whole, so it is cut off here; the SHA-256 check that follows every
 * download decides whether the file is the right one.
 */
export async function dropProgressTrailer(path: string, totalBytes: number): Promise<void> {
  if (totalBytes > 0 && (await stat(path)).size > totalBytes) await truncate(path, totalBytes);
}

/**
 * Downloads with node-llama-cpp. Quirks handled here: creating the downloader already contacts
 * the server (with ipull's long retry schedule and no signal), so it races the signal; and
 * `download()` can resolve normally after a cancel, so the signal is checked afterwards.
 */
export async function downloadWithNodeLlamaCpp(request: UrlDownloadRequest): Promise<UrlDownloadResult> {
  const { signal } = request;
  let downloader: ModelDownloader | undefined;
  try {
    downloader = await unlessAborted(createModelDownloader({
      modelUri: request.url,
      dirPath: request.dirPath,
      fileName: request.fileName,
      skipExisting: true,
      deleteTempFileOnCancel: false,
      showCliProgress: false,
      onProgress: (status) => request.onProgress(status.downloadedSize, status.totalSize),
    }), signal);
    if (!downloader) return { kind: 'aborted' };
    const path = await downloader.download({ signal });
    if (signal.aborted) return { kind: 'aborted' };
    await dropProgressTrailer(path, downloader.totalSize);
    return { kind: 'ok', path };
  } catch (error) {
    if (signal.aborted) return { kind: 'aborted' };
    return { kind: 'error', message: error instanceof Error ? error.message : String(error), diskFull: isDiskFull(error) };
  } finally {
    // Closing writes nothing more and keeps FILE.ipull, so the next attempt resumes.
    if (signal.aborted) await downloader?.cancel({ deleteTempFile: false }).catch(() => {});
  }
}
