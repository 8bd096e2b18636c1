/**
 * Candidates kept while the user types on one line (issue 19, setting keepCandidatesWhileTyping).
 * Retrieval reads the cursor line, so every keystroke can reorder the candidates; in the
 * repository layout they come first in the prompt, and a new order makes the model read the
 * whole prompt again (20 s on two cores) for evidence that is, one keystroke on, much the same.
 * So the candidates retrieved where the cursor came onto the line hold while the user types
 * forward from there. Backspacing past that point (a rewrite), another line, or a change to a
 * file they come from retrieves afresh.
 */
import type { IndexView } from '../indexing/types.js';
import type { PackedChunk } from '../prompt/budget.js';
import type { Candidate } from '../retrieval/types.js';
import type { LineRetrieval } from '../control/decisionCache.js';

/** The cursor line's text before the cursor: the last line of the prefix. */
export function linePrefixOf(prefix: string): string {
  return prefix.slice(prefix.lastIndexOf('\n') + 1);
}

/** What candidates were retrieved from: the versions of their files and of the file set. */
export type RetrievalSources = Pick<LineRetrieval, 'fileVersions' | 'fileSetVersion'>;

/**
 * The sources of `candidates`, read when they were retrieved: packing them awaits the tokenizer,
 * and a file indexed meanwhile must count as new to them, not as seen.
 */
export function retrievalSources(candidates: readonly Candidate[], index: IndexView, ownRelPath: string | undefined): RetrievalSources {
  const fileVersions = new Map<string, number>();
  for (const { chunk } of candidates) {
    if (chunk.relPath !== ownRelPath) fileVersions.set(chunk.relPath, index.file(chunk.relPath)?.version ?? -1);
  }
  return { fileVersions, fileSetVersion: index.fileSetVersion };
}

/** A record of candidates retrieved at `linePrefix`, with what they were retrieved from. */
export function lineRetrieval(
  linePrefix: string, candidates: Candidate[], packed: PackedChunk[], sources: RetrievalSources, line?: number,
): LineRetrieval {
  return { linePrefix, candidates, packed, ...sources, ...(line === undefined ? {} : { line }) };
}

/**
 * Whether `kept` still holds at `linePrefix`: the user typed on from where it was retrieved and
 * no other file it comes from changed. The document's own chunks are not checked: it changes
 * with every keystroke, and its text near the cursor is in the prompt anyway.
 */
export function stillHolds(kept: LineRetrieval, linePrefix: string, index: IndexView): boolean {
  return linePrefix.startsWith(kept.linePrefix) && sourcesUnchanged(kept, index);
}

/**
 * Whether no other file the candidates come from changed since they were retrieved, and no file
 * came or went (a new module may hold what the cursor needs).
 */
export function sourcesUnchanged(kept: LineRetrieval, index: IndexView): boolean {
  // Not a count of files: one file added while another is removed would leave it unchanged.
  if (index.fileSetVersion !== kept.fileSetVersion) return false;
  for (const [relPath, version] of kept.fileVersions) {
    if ((index.file(relPath)?.version ?? -1) !== version) return false;
  }
  return true;
}
