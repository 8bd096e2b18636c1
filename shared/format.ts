/** Formatting shared by the server's CLI and the VS Code client. */
import type { CompletionTrace } from './messages.js';

/**
 * A probability as a percentage with one decimal, e.g. `86.6%`; one under 0.1 % (P(<NEED>) read
 * over the whole vocabulary) with its exponent, `3.2e-4%`, rather than `0.0%`.
 */
export function formatPercent(probability: number): string {
  const value = 100 * probability;
  return `${value > 0 && value < 0.1 ? value.toExponential(1) : value.toFixed(1)}%`;
}

/** All the tokens a completion's trace says the model evaluated, every stage together. */
export function evaluatedTotal(evaluated: NonNullable<CompletionTrace['tokens']['evaluated']>): number {
  return evaluated.trigger + evaluated.selection + evaluated.prompt + evaluated.generated;
}
