/**
 * Which cached tokens a new prompt can keep when the prompt moved rather than changed: a prefix
 * window that slid by a line, a jump to a nearby function, a chunk that both prompts carry. The
 * plan keeps the common prefix, then runs of at least `minRun` tokens that the cache holds further
 * on in the same order, erasing what lies between them; llama.cpp shifts the kept runs' positions
 * down (node-llama-cpp's eraseContextTokenRanges), as llama-server's `--cache-reuse` does.
 *
 * What is kept is the KV of tokens that once followed other tokens: exact for positions (RoPE
 * shifts exactly), approximate for content. So only the completion sessions use it; the labeler
 * and feature extraction need exact likelihoods and keep the common prefix alone.
 */

/** A range of cache indices, end exclusive. */
export interface TokenRange {
  start: number;
  end: number;
}

export interface ShiftedReusePlan {
  /** Tokens of the new prompt the cache holds after the erasures (a prefix of it). */
  reused: number;
  /** Cache ranges to erase, ascending; the tokens after each move down. */
  erase: TokenRange[];
}

/**
 * The plan for `wanted` over `cached`, keeping nothing at or past `limit` in `wanted` (outputs
 * are needed from there, so those tokens must be evaluated anyway).
 */
export function planShiftedReuse(
  cached: readonly number[], wanted: readonly number[], limit: number, minRun: number,
): ShiftedReusePlan {
  const end = Math.min(limit, wanted.length);
  let w = 0;
  while (w < end && w < cached.length && cached[w] === wanted[w]) w++;
  let c = w;
  const erase: TokenRange[] = [];
  while (w + minRun <= end && c < cached.length) {
    const found = findRun(cached, c, wanted, w, minRun);
    if (found < 0) break;
    if (found > c) erase.push({ start: c, end: found });
    c = found;
    while (c < cached.length && w < end && cached[c] === wanted[w]) {
      c++;
      w++;
    }
  }
  if (c < cached.length) erase.push({ start: c, end: cached.length });
  return { reused: w, erase };
}

/** The first index at or after `from` where `cached` holds wanted[at, at + length); -1 if none. */
function findRun(cached: readonly number[], from: number, wanted: readonly number[], at: number, length: number): number {
  const first = wanted[at];
  for (let k = from; k + length <= cached.length; k++) {
    if (cached[k] !== first) continue;
    let n = 1;
    while (n < length && cached[k + n] === wanted[at + n]) n++;
    if (n === length) return k;
  }
  return -1;
}
