/**
 * A completion cancelled while the model is deciding (the client typed on) is an expected
 * outcome: the engine answers `cancelled` and logs no error. The soak cancels thousands of
 * requests this way; each used to leave a "completion failed" error line in the log.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { createCompletionEngine } from '../../server/src/completion/createEngine.js';
import type { ModelLoader } from '../../server/src/completion/modelManager.js';
import type { ModelSession } from '../../server/src/model/completionModel.js';
import { loadLlamaModel } from '../../server/src/model/llama/loadLlamaModel.js';
import { createMemoryLogger } from '../../server/src/util/logger.js';
import { createTempWorkspace, PROBE_POSITION, PROBE_PY, type TempWorkspace } from './fixtureWorkspace.js';

let workspace: TempWorkspace;
beforeAll(async () => {
  workspace = await createTempWorkspace('reposhapley-cancel-');
});
afterAll(() => workspace?.dispose());

/** The real tiny model, whose sessions abort `controller` when the first decision starts. */
function abortingLoader(controller: AbortController): ModelLoader {
  return async (options, logger) => {
    const loaded = await loadLlamaModel(options, logger);
    if (loaded.kind !== 'ok') return loaded;
    const model = loaded.model;
    const createSession = model.createSession.bind(model);
    model.createSession = async (): Promise<ModelSession> => {
      const session = await createSession();
      const decide = session.decide.bind(session);
      session.decide = (tokens, first, second, signal) => {
        controller.abort(new Error('completion client'));
        return decide(tokens, first, second, signal);
      };
      return session;
    };
    return loaded;
  };
}

test('aborted during the NEED/DONE decision: outcome cancelled, no error logged', async () => {
  const controller = new AbortController();
  const logger = createMemoryLogger();
  const engine = createCompletionEngine({
    logger, modelLoader: abortingLoader(controller),
    settings: { modelPath: workspace.modelPath, policy: 'reposhapley', threads: 1, maxTokens: 8 },
  });
  try {
    await engine.indexWorkspace([workspace.root], () => {});
    engine.openDocument(workspace.probeUri, PROBE_PY, 1);
    const outcome = await engine.complete({ uri: workspace.probeUri, ...PROBE_POSITION, trigger: 'invoked' }, controller.signal);
    expect(controller.signal.aborted).toBe(true);
    expect(outcome).toEqual({ kind: 'cancelled' });
    expect(logger.lines.filter((line) => line.startsWith('[error]'))).toEqual([]);
  } finally {
    await engine.dispose();
  }
});
