/**
 * Parity of an exported GGUF with the torch model it came from: the trainer's fp32 reference
 * logits (dump.py --logits-out) against node-llama-cpp's next-token distribution on the same
 * tokens. Logits are compared as log-probabilities (log-softmax), which removes the one
 * per-position constant that softmax cannot see.
 *
 *   node dist/models/export/parity.js --gguf M.gguf --tokens tokens.json --logits logits.f32 [--tolerance 0.05]
 */
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import { llamaLogProbs, type LogProbOptions } from './llamaLogProbs.js';

export interface ParityReport {
  positions: number;
  vocabularySize: number;
  /** max |ln p_torch − ln p_llama| over all positions and tokens. */
  maxAbsLogProbDiff: number;
  meanAbsLogProbDiff: number;
  /** max |p_torch − p_llama|. */
  maxAbsProbDiff: number;
  /** Positions where both pick the same most likely token. */
  argmaxAgreement: number;
  /** Spread of the reference logits (max − min, averaged over positions): a blind check has ~0. */
  meanLogitRange: number;
}

/** ln softmax of one row, in float64. */
export function logSoftmax(logits: ArrayLike<number>): Float64Array {
  let max = -Infinity;
  for (let i = 0; i < logits.length; i++) max = Math.max(max, logits[i]);
  let sum = 0;
  for (let i = 0; i < logits.length; i++) sum += Math.exp(logits[i] - max);
  const shift = max + Math.log(sum);
  return Float64Array.from(logits, (v) => v - shift);
}

/** Compare reference logits (row-major [positions, vocab]) with llama.cpp log-probabilities. */
export function compareLogProbs(reference: Float32Array, llama: Float64Array[]): ParityReport {
  const positions = llama.length;
  const vocabularySize = reference.length / positions;
  if (!Number.isInteger(vocabularySize)) throw new Error(`reference has ${reference.length} values for ${positions} positions`);
  let maxAbs = 0, sumAbs = 0, maxProb = 0, agree = 0, rangeSum = 0;
  for (let t = 0; t < positions; t++) {
    const row = reference.subarray(t * vocabularySize, (t + 1) * vocabularySize);
    if (llama[t].length !== vocabularySize) throw new Error(`llama.cpp vocabulary ${llama[t].length} != reference ${vocabularySize}`);
    const torch = logSoftmax(row);
    let argTorch = 0, argLlama = 0, min = Infinity, max = -Infinity;
    for (let v = 0; v < vocabularySize; v++) {
      // An underflowed llama probability (-Infinity) counts as exp(-104), float32's smallest.
      const l = Number.isFinite(llama[t][v]) ? llama[t][v] : -104;
      const diff = Math.abs(torch[v] - l);
      maxAbs = Math.max(maxAbs, diff);
      sumAbs += diff;
      maxProb = Math.max(maxProb, Math.abs(Math.exp(torch[v]) - Math.exp(l)));
      if (torch[v] > torch[argTorch]) argTorch = v;
      if (llama[t][v] > llama[t][argLlama]) argLlama = v;
      min = Math.min(min, row[v]);
      max = Math.max(max, row[v]);
    }
    if (argTorch === argLlama) agree++;
    rangeSum += max - min;
  }
  return {
    positions,
    vocabularySize,
    maxAbsLogProbDiff: maxAbs,
    meanAbsLogProbDiff: sumAbs / (positions * vocabularySize),
    maxAbsProbDiff: maxProb,
    argmaxAgreement: agree / positions,
    meanLogitRange: rangeSum / positions,
  };
}

/** Read the inputs, run node-llama-cpp, compare. */
export async function checkParity(ggufPath: string, tokensPath: string, logitsPath: string, options: LogProbOptions = {}): Promise<ParityReport> {
  const tokens = JSON.parse(await readFile(tokensPath, 'utf8')) as number[];
  const bytes = await readFile(logitsPath);
  const reference = new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length));
  const llama = await llamaLogProbs(ggufPath, tokens, options);
  return compareLogProbs(reference, llama);
}

async function main(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      gguf: { type: 'string' },
      tokens: { type: 'string' },
      logits: { type: 'string' },
      threads: { type: 'string', default: '2' },
      tolerance: { type: 'string', default: '0.05' },
      exact: { type: 'boolean', default: false },
    },
  });
  if (!values.gguf || !values.tokens || !values.logits) {
    throw new Error('usage: parity --gguf M.gguf --tokens tokens.json --logits logits.f32 [--threads N] [--tolerance X] [--exact]');
  }
  const report = await checkParity(values.gguf, values.tokens, values.logits, {
    threads: Number(values.threads), exactAttention: values.exact,
  });
  const tolerance = Number(values.tolerance);
  const ok = report.maxAbsLogProbDiff <= tolerance;
  process.stdout.write(`${JSON.stringify({ ...report, tolerance, ok })}\n`);
  return ok ? 0 : 1;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main(process.argv.slice(2)).then((code) => process.exit(code), (error: unknown) => {
    process.stderr.write(`parity: ${(error as Error).message}\n`);
    process.exit(2);
  });
}
