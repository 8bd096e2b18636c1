import { expect, test } from 'vitest';
import type { ModelInfo } from '../model/completionModel.js';
import { createMemoryLogger } from '../util/logger.js';
import { resolvePolicy } from './resolvePolicy.js';

const info = (hasControlTokens: boolean, controlTokensTrained: boolean): ModelInfo => ({
  path: `/m-${hasControlTokens}-${controlTokensTrained}.gguf`, architecture: 'llama', contextSize: 1024, vocabularySize: 10,
  special: {}, hasControlTokens, controlTokensTrained, gpuLayers: 0, threads: 1,
});

test.each([
  ['auto', true, true, 'reposhapley'],
  ['auto', true, false, 'full'],
  ['auto', false, false, 'full'],
  ['reposhapley', true, false, 'reposhapley'],
  ['reposhapley', false, false, 'full'],
  ['none', true, true, 'none'],
  ['full', true, true, 'full'],
] as const)('%s on a model with control tokens %s, trained %s -> %s', (requested, has, trained, expected) => {
  expect(resolvePolicy(requested, info(has, trained), createMemoryLogger()).name).toBe(expected);
});

test('auto runs full in a language the control was not trained on, and says so once', () => {
  const logger = createMemoryLogger();
  const trained = { ...info(true, true), path: '/python-pack.gguf' };
  expect(resolvePolicy('auto', trained, logger, 'python').name).toBe('reposhapley');
  expect(resolvePolicy('auto', trained, logger, 'go').name).toBe('full');
  expect(resolvePolicy('auto', trained, logger, 'go').name).toBe('full');
  expect(resolvePolicy('reposhapley', trained, logger, 'go').name).toBe('reposhapley');
  expect(resolvePolicy('auto', { ...trained, controlLanguages: ['python', 'go'] }, logger, 'go').name).toBe('reposhapley');
  expect(logger.lines.filter((line) => line.includes('not on go'))).toHaveLength(1);
});

test('each fallback is logged once per model', () => {
  const logger = createMemoryLogger();
  const model = { ...info(true, false), path: '/once.gguf' };
  resolvePolicy('auto', model, logger);
  resolvePolicy('auto', model, logger);
  expect(logger.lines.filter((l) => l.includes('/once.gguf'))).toHaveLength(1);
});

test('a vocabulary trigger on a backend that reports only the pair runs full, said once', () => {
  const logger = createMemoryLogger();
  const remote: ModelInfo = { ...info(true, true), path: '/remote.gguf', triggerSoftmax: 'vocabulary', vocabularyDecisions: false };
  expect(resolvePolicy('reposhapley', remote, logger).name).toBe('full');
  expect(resolvePolicy('auto', remote, logger).name).toBe('full');
  expect(logger.lines.filter((line) => line.includes('over the whole vocabulary'))).toHaveLength(1);
  expect(resolvePolicy('auto', { ...remote, path: '/local.gguf', vocabularyDecisions: true }, logger).name).toBe('reposhapley');
});
