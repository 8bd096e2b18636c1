/**
 * The URL source: a quick probe (reachable? right size?), then the resumable download through the
 * UrlDownloader port, aborted when no byte arrives for a while so a dead host cannot hang a pull.
 */
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { CatalogEntry, UrlSource } from './catalog.js';
import { failure, formatMegabytes, type PullFailure } from './outcome.js';
import type { TransferProgress } from './progress.js';
import type { UrlDownloader } from './urlDownloadPort.js';

/** Inputs of {@link downloadFromUrl}. */
export interface UrlFetch {
  entry: CatalogEntry;
  source: UrlSource;
  /** The directory the download is staged (and resumed) in. */
  stagingDir: string;
  downloader: UrlDownloader;
  progress: TransferProgress;
  /** Abort when no byte arrives for this long (also the probe's timeout). */
  stallTimeoutMs: number;
  signal?: AbortSignal;
}

/** The size the server announces for a one-byte range request, undefined when it says none. */
function announcedSize(response: Response): number | undefined {
  const range = /\/(\d+)\s*$/.exec(response.headers.get('content-range') ?? '');
  if (range) return Number(range[1]);
  const length = response.status === 200 ? Number(response.headers.get('content-length')) : NaN;
  return Number.isFinite(length) && length > 0 ? length : undefined;
}

/** Asks for the first byte: fails fast when the host is unreachable or the file is not the pinned size. */
export async function probeUrl(entry: CatalogEntry, url: string, timeoutMs: number, signal?: AbortSignal): Promise<{ kind: 'ok' } | PullFailure> {
  const signals = [AbortSignal.timeout(timeoutMs), ...(signal ? [signal] : [])];
  try {
    const response = await fetch(url, { headers: { range: 'bytes=0-0', 'accept-encoding': 'identity' }, signal: AbortSignal.any(signals) });
    await response.body?.cancel().catch(() => {});
    if (!response.ok) return failure('download-failed', `${url} answered HTTP ${response.status}`);
    const size = announcedSize(response);
    if (size !== undefined && size !== entry.sizeBytes) {
      return failure('hash-mismatch', `${url} serves ${size} bytes, expected ${entry.sizeBytes}: not the pinned file, nothing downloaded`);
    }
    return { kind: 'ok' };
  } catch (error) {
    if (signal?.aborted) return failure('cancelled', 'cancelled');
    const cause = (error as { cause?: { code?: string } }).cause?.code;
    return failure('download-failed', `cannot reach ${new URL(url).host} (${cause ?? (error as Error).message}); check the network or proxy`);
  }
}

/** An AbortController that fires when `kick` is not called for `ms`, or when `outer` aborts. */
function stallWatchdog(ms: number, outer?: AbortSignal): { signal: AbortSignal; kick(): void; stalled(): boolean; dispose(): void } {
  const controller = new AbortController();
  let stalled = false;
  let timer: NodeJS.Timeout | undefined;
  const kick = () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      stalled = true;
      controller.abort(new Error('stalled'));
    }, ms);
  };
  const onOuter = () => controller.abort(outer?.reason);
  outer?.addEventListener('abort', onOuter, { once: true });
  kick();
  return { signal: controller.signal, kick, stalled: () => stalled, dispose: () => { clearTimeout(timer); outer?.removeEventListener('abort', onOuter); } };
}

/**
 * Downloads the source into `stagingDir/fileName` (not yet verified). A stalled or failed
 * download leaves its partial file for the next pull to resume.
 */
export async function downloadFromUrl(request: UrlFetch): Promise<{ kind: 'ok'; file: string } | PullFailure> {
  const { entry, source, progress } = request;
  const probe = await probeUrl(entry, source.url, request.stallTimeoutMs, request.signal);
  if (probe.kind === 'error') return probe;
  await mkdir(request.stagingDir, { recursive: true });
  const watchdog = stallWatchdog(request.stallTimeoutMs, request.signal);
  progress.start(`download ${formatMegabytes(entry.sizeBytes)} (${new URL(source.url).host})`, entry.sizeBytes);
  const result = await request.downloader({
    url: source.url,
    dirPath: request.stagingDir,
    fileName: entry.fileName,
    onProgress: (done) => {
      watchdog.kick();
      progress.update(done);
    },
    signal: watchdog.signal,
  }).finally(() => {
    watchdog.dispose();
    progress.stop();
  });
  const file = path.join(request.stagingDir, entry.fileName);
  if (result.kind === 'ok' && existsSync(file)) return { kind: 'ok', file };
  if (result.kind === 'error' && result.diskFull) {
    return failure('disk-full', `no space left on the device while downloading ${entry.fileName}; free some space or pass --cache-dir DIR on a larger disk`);
  }
  if (request.signal?.aborted) return failure('cancelled', 'cancelled while downloading; run the pull again to resume');
  const why = watchdog.stalled() ? `no data for ${Math.round(request.stallTimeoutMs / 1000)} s`
    : result.kind === 'error' ? result.message : `the file did not appear at ${file}`;
  return failure('download-failed', `download of ${source.url} failed (${why}); run the pull again to resume`);
}
