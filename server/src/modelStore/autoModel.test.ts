import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, onTestFinished, test } from 'vitest';
import { chooseAutoModel, chooseAutoModelHere, LATENCY_TARGETS, predict } from './autoModel.js';
import { MODEL_CATALOG } from './catalog.js';
import { machineKey, saveSpeedMeasurement, type SpeedMeasurement } from './machineSpeed.js';

const SMALL = 'qwen2.5-coder-0.5b';
const LARGE = 'qwen2.5-coder-1.5b';

/** Prompts read at `promptTokensPerSecond` when long, at half that when short (their chunks are smaller). */
function measured(model: string, promptTokensPerSecond: number, generatedTokensPerSecond: number, loadMs = 800): SpeedMeasurement {
  return {
    model, machine: machineKey(), threads: 2, runtime: 'node-llama-cpp test cpu', loadMs, promptTokensPerSecond,
    shortPromptTokensPerSecond: promptTokensPerSecond / 2, generatedTokensPerSecond,
    loadAverage: 0, measuredAt: '2026-12-06T00:00:00.000Z',
  };
}

describe('auto picks by measured speed', () => {
  test('a fast machine (a GPU, or many cores) gets the larger model, and says why', () => {
    const choice = chooseAutoModel([measured(SMALL, 3_000, 200, 500)]);
    expect(choice.model).toBe(LARGE);
    expect(choice.predictions.map((p) => [p.model, p.meetsTargets, p.basis])).toEqual([
      [SMALL, true, 'measured'], [LARGE, true, `scaled from ${SMALL}`],
    ]);
    expect(choice.reason).toMatch(/^qwen2\.5-coder-1\.5b: \d+ prompt tok\/s \(scaled from qwen2\.5-coder-0\.5b\), within the targets/);
  });

  test('a slow machine gets the smaller model, and the reason names what the larger would cost', () => {
    const choice = chooseAutoModel([measured(SMALL, 250, 30)]);
    expect(choice.model).toBe(SMALL);
    expect(choice.reason).toMatch(/^qwen2\.5-coder-0\.5b: 250 prompt tok\/s measured, .*; qwen2\.5-coder-1\.5b would take keystroke \d\.\d s/);
  });

  test('a machine too slow for every model still gets the fastest one', () => {
    const choice = chooseAutoModel([measured(SMALL, 20, 3, 9_000)]);
    expect(choice.model).toBe(SMALL);
    expect(choice.predictions.every((p) => !p.meetsTargets)).toBe(true);
    expect(choice.reason).toMatch(/the fastest in the catalog, though over the targets here/);
  });

  test("a model measured itself is judged by its own speed, not the smaller one's scaled", () => {
    // The scaled guess says the larger fits; its own measurement says it does not.
    const choice = chooseAutoModel([measured(SMALL, 3_000, 200, 500), measured(LARGE, 100, 8, 3_000)]);
    expect(choice.model).toBe(SMALL);
    expect(choice.predictions.find((p) => p.model === LARGE)?.basis).toBe('measured');
  });

  test('nothing measured: the smallest, said as unmeasured with the command that measures', () => {
    const choice = chooseAutoModel([]);
    expect(choice).toMatchObject({ model: SMALL, unmeasured: true, predictions: [] });
    expect(choice.reason).toMatch(/not measured yet \(run "reposhapley model speed"\)/);
  });

  test('the prediction adds the reference work at the measured rates', () => {
    const small = MODEL_CATALOG.find((entry) => entry.name === SMALL)!;
    const p = predict(small, [measured(SMALL, 320, 32, 1_000)])!;
    expect(p.keystrokeMs).toBeCloseTo((32 / 160) * 1000 + (10 / 32) * 1000);
    expect(p.coldStartMs).toBeCloseTo(1_000 + 300 + (352 / 320) * 1000 + (8 / 32) * 1000);
    expect(p.meetsTargets).toBe(p.keystrokeMs <= LATENCY_TARGETS.keystrokeMs && p.coldStartMs <= LATENCY_TARGETS.coldStartMs);
  });
});

describe('measurements kept per machine and threads', () => {
  test('read back from the cache folder; another thread count or machine does not count', () => {
    const cacheDir = mkdtempSync(path.join(os.tmpdir(), 'auto-speed-'));
    onTestFinished(() => rmSync(cacheDir, { recursive: true, force: true }));
    expect(chooseAutoModelHere(cacheDir, 2).unmeasured).toBe(true);
    saveSpeedMeasurement(cacheDir, measured(SMALL, 3_000, 200, 500));
    saveSpeedMeasurement(cacheDir, { ...measured(SMALL, 10, 1), machine: 'another CPU × 64' });
    expect(chooseAutoModelHere(cacheDir, 2).model).toBe(LARGE);
    expect(chooseAutoModelHere(cacheDir, 1).unmeasured).toBe(true);
    // Measured with another adapter than the model is served with now (an older pack): it replaces the
    // measurement and does not count, so the machine is unmeasured again.
    saveSpeedMeasurement(cacheDir, { ...measured(SMALL, 3_000, 200, 500), adapter: 'f'.repeat(64) });
    expect(chooseAutoModelHere(cacheDir, 2).unmeasured).toBe(true);
    // Measured again (the same model, machine, threads and runtime): the new figures replace the old.
    saveSpeedMeasurement(cacheDir, { ...measured(SMALL, 250, 30), measuredAt: '2026-12-07T00:00:00.000Z' });
    expect(chooseAutoModelHere(cacheDir, 2).model).toBe(SMALL);
  });
});
