/**
 * The UrlDownloader adapter over node-llama-cpp's `createModelDownloader` (ipull underneath:
 * parallel ranged requests, progress kept in `FILE.ipull` next to the target, resumed by the
 * next attempt, renamed to FILE when complete).
 */
import { createModelDownloader, type ModelDownloader } from 'node-llama-cpp';
import type { UrlDownloadRequest, UrlDownloadResult } from '../../modelStore/urlDownloader.js';

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
    return signal.aborted ? { kind: 'aborted' } : { kind: 'ok', path };
  } catch (error) {
    if (signal.aborted) return { kind: 'aborted' };
    return { kind: 'error', message: error instanceof Error ? error.message : String(error), diskFull: isDiskFull(error) };
  } finally {
    // Closing writes nothing more and keeps FILE.ipull, so the next attempt resumes.
    if (signal.aborted) await downloader?.cancel({ deleteTempFile: false }).catch(() => {});
  }
}
