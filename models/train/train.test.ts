/**
 * Runs the trainer's Python unit tests (models/train/test_train.py: RoPE convention, shard
 * packing, loss weighting, bitwise-identical resume, SIGTERM checkpointing, --init-weights; and
 * test_control_rows.py: the control-row trainer on synthetic features; test_control_finetune.py:
 * the GPU fine-tune and the Qwen2 GGUF loader on tiny random models)
 * under vitest, the project's one test runner. Skipped with the reason when Debian's python3
 * lacks torch.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test } from 'vitest';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const PYTHON = process.env.REPOSHAPLEY_PYTHON ?? '/usr/bin/python3';
const HAS_TORCH = spawnSync(PYTHON, ['-c', 'import torch'], { stdio: 'ignore' }).status === 0;

test('trainer unit tests (python unittest)', (ctx) => {
  ctx.skip(!HAS_TORCH, `skipped: ${PYTHON} cannot import torch; install it with ` +
    '`apt-get install -y --no-install-recommends python3-torch libopenblas0-pthread`');
  const result = spawnSync(PYTHON, ['-m', 'unittest', 'test_train', 'test_control_rows', 'test_control_finetune'], {
    cwd: HERE, encoding: 'utf8', timeout: 600_000, env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1' },
  });
  expect(result.status, `${result.stdout}\n${result.stderr}`).toBe(0);
  expect(result.stderr).toMatch(/Ran \d+ tests/);
}, 600_000);
