/** `reposhapley index DIR`: index a workspace and print what the index holds and how long it took. */
import path from 'node:path';
import { boundMessage } from '../indexing/indexResults.js';
import type { IndexStats } from '../completion/engine.js';
import type { EngineFactory } from '../lsp/server.js';
import type { Logger } from '../util/logger.js';
import { isDirectory } from './location.js';
import { EXIT_FAILURE, EXIT_OK, type CliOutput } from './output.js';

/** Options of `index`. */
export interface IndexOptions {
  json?: boolean;
}

/** Everything `index` needs from its caller. */
export interface IndexDeps {
  createEngine: EngineFactory;
  logger: Logger;
  output: CliOutput;
  signal?: AbortSignal;
}

/** Runs `index`; resolves with the process exit code. */
export async function runIndex(dir: string, options: IndexOptions, deps: IndexDeps): Promise<number> {
  const root = path.resolve(dir);
  if (!isDirectory(root)) {
    deps.output.err(`${root} is not a directory`);
    return EXIT_FAILURE;
  }
  const engine = await deps.createEngine({ logger: deps.logger });
  try {
    engine.onNotice((notice) => deps.output.err(`${notice.severity}: ${notice.message}`));
    const stats = await engine.indexWorkspace([root], () => {}, deps.signal);
    const lines = options.json ? [JSON.stringify(stats, null, 2)] : formatStats(stats);
    for (const line of lines) deps.output.out(line);
    return EXIT_OK;
  } finally {
    await engine.dispose();
  }
}

/** `: python 120, typescript 40`, largest first; nothing when there are none. */
function counted(counts: Record<string, number> = {}): string {
  const entries = Object.entries(counts).sort(([a, m], [b, n]) => n - m || (a < b ? -1 : 1));
  return entries.length === 0 ? '' : `: ${entries.map(([key, count]) => `${key} ${count}`).join(', ')}`;
}

/** Index statistics as readable lines. */
export function formatStats(stats: IndexStats): string[] {
  return [
    `indexed ${stats.roots.join(', ')}`,
    `  files:             ${stats.files}${counted(stats.filesByLanguage)}`,
    `  skipped:           ${stats.skipped}${counted(stats.skippedByReason)}${stats.skipped > 0 ? ' (REPOSHAPLEY_LOG=debug names each)' : ''}`,
    `  lines:             ${stats.lines}`,
    `  bytes:             ${stats.bytes} (${(stats.bytes / 1024 / 1024).toFixed(2)} MiB)`,
    `  windows:           ${stats.windows}`,
    `  structural chunks: ${stats.structuralChunks}`,
    `  definitions:       ${stats.definitions}`,
    `  wall time:         ${Math.round(stats.wallMs)} ms`,
    `  index version:     ${stats.version}`,
    ...(stats.bound ? [`  ${boundMessage(stats.bound)}`] : []),
  ];
}
