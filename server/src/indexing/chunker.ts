/**
 * Chunks of one file. Sliding windows are the retrieval unit of the paper (RepoShapley A.4:
 * w lines, stride s); structural chunks (functions, methods, classes, the import block) serve
 * definition and usage lookups (Rivet §3.3). Chunks are line ranges only: text is derived from
 * FileIndex.lines on demand, which keeps the index of a large workspace small.
 */
import type { Chunk, ChunkKind } from './types.js';
import type { DefinitionSite, SymbolExtraction } from './symbols.js';

/** Chunk sizes, in lines. */
export interface ChunkOptions {
  /** Window length w. */
  windowLines: number;
  /** Window stride s (1 <= s <= w, so windows cover every line). */
  windowStride: number;
  /** Longer function/method/class/import chunks are split into parts of at most this many lines. */
  maxChunkLines: number;
}

/** w=20, s=10 as in the paper; 60-line parts keep a structural chunk within a prompt budget. */
export const DEFAULT_CHUNK_OPTIONS: Readonly<ChunkOptions> = { windowLines: 20, windowStride: 10, maxChunkLines: 60 };

/** Throws RangeError for sizes that would leave lines uncovered or loop forever (a caller bug). */
export function validateChunkOptions(options: ChunkOptions): void {
  const { windowLines: w, windowStride: s, maxChunkLines: max } = options;
  const ok = [w, s, max].every((n) => Number.isInteger(n) && n >= 1) && s <= w;
  if (!ok) throw new RangeError(`invalid chunk options w=${w} s=${s} max=${max}: need integers >= 1 and s <= w`);
}

/** The deterministic chunk id of types.ts. */
export function chunkId(relPath: string, kind: ChunkKind, startLine: number, endLine: number): string {
  return `${relPath}:${kind}:${startLine}-${endLine}`;
}

/** Lines that hold content: the empty string after a final newline is not a line of the file. */
export function contentLineCount(lines: readonly string[]): number {
  const n = lines.length;
  return n > 0 && lines[n - 1] === '' ? n - 1 : n;
}

/**
 * Windows [k*s, k*s + w) while they end before the file does, then one window aligned to the
 * end so the last lines are covered; a file of at most w lines is one window. All-blank windows
 * carry nothing to retrieve and are dropped. Window objects of `previous` (the file's last
 * version) are reused where the range is the same: chunks are immutable, ids are ranges.
 */
export function slidingWindows(
  relPath: string, lines: readonly string[], options: ChunkOptions = DEFAULT_CHUNK_OPTIONS, previous: readonly Chunk[] = [],
): Chunk[] {
  const n = contentLineCount(lines);
  const { windowLines: w, windowStride: s } = options;
  if (n === 0) return [];
  const nonBlankBefore = countNonBlank(lines, n);
  const windows: Chunk[] = [];
  const add = (start: number, end: number) => {
    if (nonBlankBefore[end]! === nonBlankBefore[start]!) return;
    // An edit that keeps the line count keeps every window: reuse the previous version's objects.
    const old = previous[windows.length];
    const same = old && old.startLine === start && old.endLine === end && old.relPath === relPath;
    windows.push(same ? old : { id: chunkId(relPath, 'window', start, end), relPath, kind: 'window', startLine: start, endLine: end });
  };
  if (n <= w) add(0, n);
  else {
    for (let start = 0; start + w < n; start += s) add(start, start + w);
    add(n - w, n);
  }
  return windows;
}

/** Prefix counts: result[i] = non-blank lines among lines[0..i). */
function countNonBlank(lines: readonly string[], n: number): Uint32Array {
  const counts = new Uint32Array(n + 1);
  for (let i = 0; i < n; i++) counts[i + 1] = counts[i]! + (isBlank(lines[i]!) ? 0 : 1);
  return counts;
}

const NON_SPACE = /\S/;

function isBlank(line: string): boolean {
  return !NON_SPACE.test(line);
}

/**
 * One chunk per function, method and class (decorators included), and one for the import block.
 * A class chunk stops before its first method, so it carries the header, docstring and class
 * attributes without repeating the methods, which have chunks of their own; a class without
 * methods is whole. Nested definitions get their own chunks too (they overlap their parent's).
 */
export function structuralChunks(
  relPath: string,
  extraction: Pick<SymbolExtraction, 'sites' | 'importBlock'>,
  lines: readonly string[],
  options: ChunkOptions = DEFAULT_CHUNK_OPTIONS,
): Chunk[] {
  const chunks: Chunk[] = [];
  const seen = new Set<string>();
  if (extraction.importBlock) {
    addUnique(chunks, seen, splitRange(relPath, 'imports', extraction.importBlock.startLine, extraction.importBlock.endLine, options.maxChunkLines));
  }
  for (const site of extraction.sites) addUnique(chunks, seen, chunksOfSite(relPath, site, lines, options.maxChunkLines));
  return chunks;
}

function addUnique(chunks: Chunk[], seen: Set<string>, added: readonly Chunk[]): void {
  for (const chunk of added) {
    // Error recovery can produce two definitions with one range; keep ids unique.
    if (!seen.has(chunk.id)) chunks.push(chunk);
    seen.add(chunk.id);
  }
}

/**
 * A site's chunks, remembered while the site object lives: an open buffer's unchanged statements
 * keep their site objects (and the lines of their range), so an edit reuses their chunks.
 */
const siteChunks = new WeakMap<DefinitionSite, { relPath: string; max: number; chunks: Chunk[] }>();

function chunksOfSite(relPath: string, site: DefinitionSite, lines: readonly string[], max: number): Chunk[] {
  const cached = siteChunks.get(site);
  if (cached && cached.relPath === relPath && cached.max === max) return cached.chunks;
  const { definition } = site;
  const end = definition.kind === 'class' ? classChunkEnd(site, lines) : definition.endLine;
  const chunks = splitRange(relPath, definition.kind, definition.startLine, end, max, definition.qualifiedName);
  siteChunks.set(site, { relPath, max, chunks });
  return chunks;
}

/** End of a class chunk: just before its first method, blank lines before the method trimmed. */
function classChunkEnd(site: DefinitionSite, lines: readonly string[]): number {
  if (site.firstMethodLine === undefined) return site.definition.endLine;
  let end = Math.min(site.firstMethodLine, site.definition.endLine);
  while (end > site.headerLine + 1 && isBlank(lines[end - 1] ?? '')) end--;
  return Math.max(end, site.headerLine + 1);
}

/** A range as one chunk, or as parts of at most `max` lines of near-equal size. */
function splitRange(relPath: string, kind: ChunkKind, start: number, end: number, max: number, symbol?: string): Chunk[] {
  const make = (s: number, e: number): Chunk => {
    const chunk: Chunk = { id: chunkId(relPath, kind, s, e), relPath, kind, startLine: s, endLine: e };
    if (symbol !== undefined) chunk.symbol = symbol;
    return chunk;
  };
  if (end <= start) return [];
  if (end - start <= max) return [make(start, end)];
  const size = Math.ceil((end - start) / Math.ceil((end - start) / max));
  const parts: Chunk[] = [];
  for (let s = start; s < end; s += size) parts.push(make(s, Math.min(end, s + size)));
  parts.forEach((part, i) => (part.part = { index: i + 1, of: parts.length }));
  return parts;
}
