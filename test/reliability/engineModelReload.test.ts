/**
 * The model changing under a serving engine, with the real node-llama-cpp on the tiny model:
 * a settings change that reloads the model while a completion runs (that completion used to
 * fail with "Object is disposed"), and a model file put back where a load had failed (it used to
 * stay unused until a setting changed or the server restarted).
 */
import { copyFileSync, renameSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, expect, test } from 'vitest';
import type { SettingsPatch } from '../../shared/settings.js';
import { createCompletionEngine } from '../../server/src/completion/createEngine.js';
import type { CompletionEngine, CompletionOutcome, UserNotice } from '../../server/src/completion/engine.js';
import type { ModelLoader } from '../../server/src/completion/modelManager.js';
import { loadLlamaModel } from '../../server/src/model/llama/loadLlamaModel.js';
import { createMemoryLogger } from '../../server/src/util/logger.js';
import { createTempWorkspace, PROBE_POSITION, PROBE_PY, type TempWorkspace } from './fixtureWorkspace.js';

let workspace: TempWorkspace;
const engines: CompletionEngine[] = [];
beforeAll(async () => {
  workspace = await createTempWorkspace('reposhapley-reload-');
});
afterEach(async () => {
  await Promise.all(engines.splice(0).map((engine) => engine.dispose()));
});
afterAll(() => workspace?.dispose());

/** Holds the first generation at its start until `open()`, so the test acts while a completion runs. */
class GenerationGate {
  private armed = true;
  private enter!: () => void;
  private release!: () => void;
  readonly entered = new Promise<void>((resolve) => (this.enter = resolve));
  private readonly opened = new Promise<void>((resolve) => (this.release = resolve));

  async pass(): Promise<void> {
    if (!this.armed) return;
    this.armed = false;
    this.enter();
    await this.opened;
  }

  open(): void {
    this.release();
  }
}

/** The real loader; models are numbered, and their generations and disposal recorded in `events`. */
function recordingLoader(events: string[], gate: GenerationGate): ModelLoader {
  let loads = 0;
  return async (options, logger) => {
    const loaded = await loadLlamaModel(options, logger);
    if (loaded.kind !== 'ok') return loaded;
    const name = `model ${++loads}`;
    const model = loaded.model;
    const dispose = model.dispose.bind(model);
    model.dispose = async () => {
      events.push(`${name} disposed`);
      await dispose();
    };
    const createSession = model.createSession.bind(model);
    model.createSession = async () => {
      const session = await createSession();
      const generate = session.generate.bind(session);
      session.generate = async (tokens, generation, signal) => {
        events.push(`${name} generates`);
        await gate.pass();
        return generate(tokens, generation, signal);
      };
      return session;
    };
    return loaded;
  };
}

async function startEngine(settings: SettingsPatch, modelLoader?: ModelLoader) {
  const logger = createMemoryLogger();
  const engine = createCompletionEngine({ logger, modelLoader, settings: { policy: 'none', threads: 1, maxTokens: 8, quickFirstAnswer: false, ...settings } });
  engines.push(engine);
  const notices: UserNotice[] = [];
  engine.onNotice((notice) => notices.push(notice));
  await engine.indexWorkspace([workspace.root], () => {});
  engine.openDocument(workspace.probeUri, PROBE_PY, 1);
  return { engine, logger, notices };
}

function complete(engine: CompletionEngine): Promise<CompletionOutcome> {
  return engine.complete({ uri: workspace.probeUri, ...PROBE_POSITION, trigger: 'invoked' }, new AbortController().signal);
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

test('a reload during a completion: it ends ok on its model, disposed only after; queued and later ones use the new model', async () => {
  const events: string[] = [];
  const gate = new GenerationGate();
  const { engine, logger } = await startEngine({ modelPath: workspace.modelPath }, recordingLoader(events, gate));
  const running = complete(engine);
  await gate.entered;
  const queued = complete(engine); // took model 1 and waits for the model lock
  await nextTurn();
  await engine.updateSettings({ threads: 2 }); // a new load key: the model is loaded again
  await nextTurn(); // an eager dispose of model 1 would have started by now
  events.push('running completion released');
  gate.open();

  expect((await running).kind).toBe('ok');
  expect((await queued).kind).toBe('ok');
  expect((await complete(engine)).kind).toBe('ok');
  expect(events).toEqual([
    'model 1 generates', 'running completion released', 'model 1 disposed', 'model 2 generates', 'model 2 generates',
  ]);
  expect(logger.lines.filter((line) => line.startsWith('[error]'))).toEqual([]);
});

test('a model file put back where the load failed is picked up by a later request; the failure is shown once', async () => {
  const modelPath = path.join(workspace.dir, 'put-back.gguf');
  const { engine, notices } = await startEngine({ modelPath });
  expect((await complete(engine)).kind).toBe('no-model');

  copyFileSync(workspace.modelPath, `${modelPath}.partial`);
  renameSync(`${modelPath}.partial`, modelPath); // whole, as a download or copy tool would leave it
  const kinds: string[] = [];
  const deadline = performance.now() + 20_000;
  do {
    await new Promise((resolve) => setTimeout(resolve, 100)); // keystrokes, not a busy loop
    kinds.push((await complete(engine)).kind);
  } while (kinds.at(-1) === 'no-model' && performance.now() < deadline);

  expect(kinds.at(-1)).toBe('ok');
  expect(kinds.slice(0, -1).filter((kind) => kind !== 'no-model')).toEqual([]);
  expect(notices).toHaveLength(1);
  expect(notices[0]!.message).toMatch(/not found/);
});
