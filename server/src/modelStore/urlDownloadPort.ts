/**
 * The port for HTTP downloads. The adapter is node-llama-cpp's downloader
 * (model/llama/urlDownload.ts, loaded only when a pull reaches a URL source: urlDownloader.ts);
 * tests may pass their own. The port has no imports, so the adapter can import it without a circle.
 */

/** One download request. */
export interface UrlDownloadRequest {
  url: string;
  /** The directory the file lands in; a partial download there is resumed. */
  dirPath: string;
  fileName: string;
  /** Bytes received so far (including resumed ones) and the total, as they arrive. */
  onProgress(doneBytes: number, totalBytes: number): void;
  /** Aborting keeps the partial download for the next attempt. */
  signal: AbortSignal;
}

/** How a download ended; the file is complete at `path` only for `ok`. */
export type UrlDownloadResult =
  | { kind: 'ok'; path: string }
  | { kind: 'error'; message: string; diskFull: boolean }
  | { kind: 'aborted' };

/** Downloads `request.url` to `dirPath/fileName`, resuming where an earlier attempt stopped. Never rejects. */
export type UrlDownloader = (request: UrlDownloadRequest) => Promise<UrlDownloadResult>;
