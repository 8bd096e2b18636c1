import { describe, expect, test } from 'vitest';
import { mulberry32 } from '../../server/src/util/hashing.js';
import { exactShapley, maskOf, surrogateGame, type Game } from './shapley.js';

/** Shapley by definition: average marginal contribution over all K! orderings. */
function permutationShapley(game: Game): number[] {
  const phi = new Array<number>(game.players).fill(0);
  let orderings = 0;
  const permute = (order: number[], rest: number[]) => {
    if (rest.length === 0) {
      orderings++;
      let mask = 0;
      for (const player of order) {
        phi[player]! += game.value(mask | (1 << player)) - game.value(mask);
        mask |= 1 << player;
      }
      return;
    }
    rest.forEach((player, i) => permute([...order, player], [...rest.slice(0, i), ...rest.slice(i + 1)]));
  };
  permute([], Array.from({ length: game.players }, (_, i) => i));
  return phi.map((p) => p / orderings);
}

/** A random game with v(∅) = 0 and arbitrary interactions. */
function randomGame(players: number, seed: number): Game {
  const random = mulberry32(seed);
  const values = Float64Array.from({ length: 1 << players }, (_, mask) => (mask === 0 ? 0 : random() * 2 - 1));
  return { players, value: (mask) => values[mask]! };
}

describe('exact Shapley', () => {
  test.each([1, 2, 3, 5, 6])('agrees with permutation Shapley on random games, K = %i', (players) => {
    for (let seed = 1; seed <= 3; seed++) {
      const game = randomGame(players, seed * 100 + players);
      const exact = exactShapley(game);
      permutationShapley(game).forEach((p, i) => expect(exact[i]).toBeCloseTo(p, 12));
    }
  });

  test('efficiency: Σφ = v(D) − v(∅) on the surrogate game at K = 10', () => {
    const deltas = [0.4, -0.2, 0.05, 0, 1.3, -0.9, 0.2, 0.01, -0.03, 0.6];
    const game = surrogateGame(deltas, 2);
    const sum = exactShapley(game).reduce((a, b) => a + b, 0);
    expect(sum).toBeCloseTo(game.value(maskOf(deltas.keys())) - game.value(0), 12);
  });

  test('symmetry: equal effects get equal values; null player: zero effect gets zero', () => {
    const phi = exactShapley(surrogateGame([0.3, 0.3, 0, -0.5], 3));
    expect(phi[0]).toBeCloseTo(phi[1]!, 12);
    expect(phi[2]).toBeCloseTo(0, 12);
    expect(phi[3]).toBeLessThan(0);
  });

  test('the sigmoid saturates: a second strong chunk adds less than the first', () => {
    const phiOne = exactShapley(surrogateGame([2], 1))[0]!;
    const phiTwo = exactShapley(surrogateGame([2, 2], 1));
    expect(phiTwo[0]! + phiTwo[1]!).toBeLessThan(2 * phiOne);
  });

  test('v_sur(∅) = 0 and K outside 0..16 is refused', () => {
    expect(surrogateGame([0.5, -0.5], 1).value(0)).toBe(0);
    expect(() => surrogateGame(new Array(17).fill(0), 1)).toThrow(RangeError);
  });
});

test('in the logistic surrogate game every Shapley value has the sign of its Δ (why verification matters)', () => {
  const random = mulberry32(11);
  for (let round = 0; round < 200; round++) {
    const deltas = Array.from({ length: 1 + Math.floor(random() * 10) }, () => (random() < 0.2 ? 0 : random() * 2 - 1));
    const phi = exactShapley(surrogateGame(deltas, 4));
    phi.forEach((value, i) => expect(Math.sign(value)).toBe(Math.sign(deltas[i]!)));
  }
});
