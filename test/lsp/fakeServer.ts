/**
 * `reposhapley serve --stdio` with a FakeEngine behind it, for orchestration tests that need
 * slow completions (supersession, cancellation) without a model. Built to dist/test/lsp/fakeServer.js.
 * FAKE_COMPLETE_DELAY_MS sets how long each completion takes; FAKE_NO_MODEL=1 answers no-model;
 * FAKE_PULLABLE=1 starts on a fallback model with a pullable one; FAKE_PULL_STEP_MS paces the pull.
 * The extra request `fake/engineStats` reports what the engine saw.
 */
import { runServe } from '../../server/src/cli/serve.js';
import { createStreamLogger } from '../../server/src/util/logger.js';
import { FakeEngine } from './fakeEngine.js';

/** Method of the stats request. */
export const ENGINE_STATS_METHOD = 'fake/engineStats';

let engine: FakeEngine | undefined;
const state = runServe(({ settings }) => {
  engine = new FakeEngine({
    completeDelayMs: Number(process.env.FAKE_COMPLETE_DELAY_MS ?? 0),
    noModel: process.env.FAKE_NO_MODEL === '1',
    pullable: process.env.FAKE_PULLABLE === '1',
    pullStepMs: Number(process.env.FAKE_PULL_STEP_MS ?? 0),
    settings,
  });
  return engine;
}, createStreamLogger('fake-server', 'debug'));

state.connection.onRequest(ENGINE_STATS_METHOD, () => ({
  completeCalls: engine?.completeCalls.length ?? 0,
  prefillCalls: engine?.prefillCalls ?? [],
  aborted: engine?.aborted ?? 0,
  edits: engine?.edits ?? [],
  fileEvents: engine?.fileEvents ?? [],
  settingsPatches: engine?.settingsPatches ?? [],
  documents: engine?.documents.uris() ?? [],
  settings: engine?.settings,
  pulls: engine?.pulls ?? [],
  pullsAborted: engine?.pullsAborted ?? 0,
}));
