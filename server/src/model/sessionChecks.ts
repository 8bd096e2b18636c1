/**
 * Checks every ModelSession adapter makes before it asks a runtime for anything: the operation
 * fits the context, and every id is in the vocabulary (llama.cpp answers an out-of-vocabulary id
 * with a bare "Eval has failed", llama-server with an HTTP 400; both should name the culprit).
 */
import { ContextOverflowError } from './completionModel.js';

export function checkFits(operation: string, positions: number, contextSize: number): void {
  if (positions > contextSize) throw new ContextOverflowError(operation, positions, contextSize);
}

export function checkTokenIds(tokens: readonly number[], others: readonly number[], vocabularySize: number): void {
  const bad = (id: number) => !Number.isInteger(id) || id < 0 || id >= vocabularySize;
  const at = tokens.findIndex(bad);
  if (at >= 0) throw new RangeError(`token id ${tokens[at]} at position ${at} is outside the vocabulary (${vocabularySize})`);
  const other = others.find(bad);
  if (other !== undefined) throw new RangeError(`token id ${other} is outside the vocabulary (${vocabularySize})`);
}
