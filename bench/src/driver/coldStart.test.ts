/**
 * A cold start with the built server and the tiny model: the first request, sent right after
 * initialize and didOpen, waits for the index and the model and is answered by that model (not
 * the bundled fallback), and the times are taken from the spawn.
 */
import path from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { createTempWorkspace, PROBE_POSITION, tinyModelSettings, type TempWorkspace } from '../../../test/reliability/fixtureWorkspace.js';
import { coldStart, withLineRestCut } from './coldStart.js';

let workspace: TempWorkspace;

beforeAll(async () => {
  workspace = await createTempWorkspace('reposhapley-cold-');
});

afterAll(() => workspace?.dispose());

test('the first request after open is answered by the configured model, timed from the spawn', async () => {
  const run = await coldStart(
    { root: workspace.root, file: path.join(workspace.root, 'probe.py'), position: PROBE_POSITION },
    { settings: tinyModelSettings(workspace.modelPath, { policy: 'full' }) },
  );
  expect(run.outcome).toBe('ok');
  expect(run.model).toBe('tiny.gguf');
  expect(run.promptTokens).toBeGreaterThan(0);
  expect(run.initializedMs).toBeGreaterThan(0);
  expect(run.firstAnswerMs).toBeGreaterThan(run.initializedMs);
}, 60_000);

test('the cursor\'s line is cut at the cursor, as while typing there; the rest is what the file held', () => {
  const text = 'def f():\n    changed = False\n    return changed\n';
  expect(withLineRestCut(text, { line: 1, character: 14 })).toEqual({ text: 'def f():\n    changed = \n    return changed\n', rest: 'False' });
  expect(withLineRestCut('a = 1\r\nb = 2\r\n', { line: 0, character: 4 })).toEqual({ text: 'a = \r\nb = 2\r\n', rest: '1' });
  expect(withLineRestCut('x\n', { line: 5, character: 0 })).toEqual({ text: 'x\n', rest: '' });
});
