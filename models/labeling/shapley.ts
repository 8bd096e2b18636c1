/**
 * ChunkShapley's attribution (RepoShapley §3.3 (a)–(c), Algorithm 2 lines 1–24): single-chunk
 * effects Δ_i, the logistic surrogate game v_sur(S) = σ(β·g(S)) − σ(0) with g(S) = Σ_{i∈S} ω_i·y_i,
 * and exact Shapley values by enumerating all 2^K coalitions (K ≤ 16; the paper uses K = 10).
 * Coalitions are bitmasks: bit i set means candidate i is in S.
 */

/** Coalitions are enumerated exhaustively; 2^16 subsets × 16 players stays in milliseconds. */
export const MAX_PLAYERS = 16;

/** A cooperative game on `players` players: the value of a coalition given as a bitmask. */
export interface Game {
  players: number;
  value(mask: number): number;
}

const sigmoid = (x: number): number => 1 / (1 + Math.exp(-x));

/**
 * The surrogate game of §3.3(b). With y_i = sign(Δ_i) and ω_i = |Δ_i|, ω_i·y_i = Δ_i, so
 * g(S) is the sum of the members' single-chunk effects.
 */
export function surrogateGame(deltas: readonly number[], beta: number): Game {
  const players = deltas.length;
  assertPlayers(players);
  const g = new Float64Array(1 << players);
  for (let mask = 1; mask < g.length; mask++) {
    const lowest = 31 - Math.clz32(mask & -mask);
    g[mask] = g[mask & (mask - 1)]! + deltas[lowest]!;
  }
  return { players, value: (mask) => sigmoid(beta * g[mask]!) - 0.5 };
}

/** Exact Shapley values φ_i = Σ_{S⊆D\{i}} |S|!(K−|S|−1)!/K! · (v(S∪{i}) − v(S)). */
export function exactShapley(game: Game): number[] {
  const k = game.players;
  assertPlayers(k);
  const values = Float64Array.from({ length: 1 << k }, (_, mask) => game.value(mask));
  const weights = coalitionWeights(k);
  const phi = new Array<number>(k).fill(0);
  for (let mask = 0; mask < values.length; mask++) {
    const size = popcount(mask);
    for (let i = 0; i < k; i++) {
      if (mask & (1 << i)) continue;
      phi[i]! += weights[size]! * (values[mask | (1 << i)]! - values[mask]!);
    }
  }
  return phi;
}

/** |S|!(K−|S|−1)!/K! for |S| = 0..K−1. */
function coalitionWeights(k: number): number[] {
  const factorial = [1];
  for (let n = 1; n <= k; n++) factorial.push(factorial[n - 1]! * n);
  return Array.from({ length: k }, (_, size) => (factorial[size]! * factorial[k - size - 1]!) / factorial[k]!);
}

export function popcount(mask: number): number {
  let count = 0;
  for (let m = mask; m; m &= m - 1) count++;
  return count;
}

/** Bitmask of a list of player indexes. */
export function maskOf(indexes: Iterable<number>): number {
  let mask = 0;
  for (const i of indexes) mask |= 1 << i;
  return mask;
}

/** Player indexes of a bitmask, ascending. */
export function membersOf(mask: number, players: number): number[] {
  return Array.from({ length: players }, (_, i) => i).filter((i) => mask & (1 << i));
}

function assertPlayers(players: number): void {
  if (!Number.isInteger(players) || players < 0 || players > MAX_PLAYERS) {
    throw new RangeError(`exact Shapley enumerates 2^K coalitions; K must be 0..${MAX_PLAYERS}, got ${players}`);
  }
}
