/**
 * The default UrlDownloader: node-llama-cpp's downloader, imported on first use (node-llama-cpp is
 * large to load, and most pulls never reach a URL source).
 */
import type { UrlDownloader } from './urlDownloadPort.js';

/** The node-llama-cpp adapter, imported on first use (node-llama-cpp is large to load). */
export const defaultUrlDownloader: UrlDownloader = async (request) => {
  const { downloadWithNodeLlamaCpp } = await import('../model/llama/urlDownload.js');
  return downloadWithNodeLlamaCpp(request);
};
