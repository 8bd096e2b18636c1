/**
 * The local adapter's greedy step, re-done on the probabilities llama-server reports.
 *
 * Locally every generated token pays a frequency penalty for each earlier occurrence among the
 * completion's own last 64 tokens (llamaSession.ts, LOOP_FREQUENCY_PENALTY). llama-server's
 * penalty sampler also counts the prompt, so its penalties would differ; the adapter asks it for
 * plain greedy tokens with their top log-probabilities and applies our penalty here. The server's
 * token stands unless a penalty makes another listed token win. Pure logic, tested without a server.
 */

/** One candidate for the next token: its id and ln p under the raw logits. */
export interface TokenChoice {
  id: number;
  logprob: number;
}

export type GreedyVerdict =
  /** The server's greedy token is ours too. */
  | { kind: 'same' }
  /** A penalty made `id` win: the server's continuation is wrong from here. */
  | { kind: 'other'; id: number }
  /**
   * A token outside the listed ones could win (every listed one was penalized below the last
   * listed log-probability): ask again for this position with more of the distribution.
   */
  | { kind: 'unsure' };

/** The tokens a penalty counts: the completion's own last `window`. */
export const PENALTY_WINDOW = 64;

/**
 * Our greedy choice among `top` (the server's top log-probabilities, best first) after `chosen`,
 * the server's greedy token, given the tokens generated so far. Ties go to the lower id, as
 * llama.cpp's greedy sampler keeps the first maximum in id order.
 */
export function penalizedGreedy(
  chosen: number, top: readonly TokenChoice[], generated: readonly number[], frequencyPenalty: number,
): GreedyVerdict {
  if (!(frequencyPenalty > 0) || top.length === 0) return { kind: 'same' };
  const counts = occurrences(generated.slice(-PENALTY_WINDOW));
  // Nothing listed scores above the unpenalized best, so a token never repeated keeps its place.
  if (!counts.has(chosen)) return { kind: 'same' };
  let best: TokenChoice | undefined;
  let bestScore = -Infinity;
  for (const candidate of top) {
    const score = candidate.logprob - frequencyPenalty * (counts.get(candidate.id) ?? 0);
    if (score > bestScore || (score === bestScore && best !== undefined && candidate.id < best.id)) {
      best = candidate;
      bestScore = score;
    }
  }
  // An unlisted token has ln p at most the last listed one's, and a penalty only lowers it.
  const unlistedBound = top[top.length - 1]!.logprob;
  if (bestScore < unlistedBound) return { kind: 'unsure' };
  return best!.id === chosen ? { kind: 'same' } : { kind: 'other', id: best!.id };
}

function occurrences(tokens: readonly number[]): Map<number, number> {
  const counts = new Map<number, number>();
  for (const token of tokens) counts.set(token, (counts.get(token) ?? 0) + 1);
  return counts;
}
