import os from 'node:os';
import path from 'node:path';
import { defineConfig } from 'vitest/config';
import { TEST_HOST_DIR } from './test/support/testHosts.js';
import { TEST_TMP_DIR } from './test/support/testTemp.js';

export default defineConfig({
  test: {
    include: [
      'server/src/**/*.test.ts', 'shared/**/*.test.ts', 'bench/src/**/*.test.ts', 'models/**/*.test.ts', 'test/**/*.test.ts',
      // The VS Code client's pure modules (its own `npm test` runs the same files).
      'client-vscode/src/**/*.test.ts',
    ],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Model and stdio tests spawn real processes; two cores are all we have.
    maxWorkers: 2,
    // Builds dist/ when sources are newer: stdio tests spawn the built server, as editors do.
    globalSetup: ['test/globalSetup.ts'],
    // Hermetic: a model pulled into the user's cache must not change what tests see. Without a
    // model path, tests (and the servers they spawn) get the bundled small model, as on CI.
    // Tests of the model store pass their own cache directories.
    // Model hosts the tests start live in a folder of their own (never the user's, whose editors
    // may share theirs), and globalSetup's teardown stops any still idling there.
    env: {
      REPOSHAPLEY_CACHE_DIR: path.join(os.tmpdir(), 'reposhapley-tests-no-model-cache'),
      REPOSHAPLEY_MODEL_HOST_DIR: TEST_HOST_DIR,
      // Scratch folders of every test and spawned process land in one folder the teardown removes.
      TMPDIR: TEST_TMP_DIR,
    },
  },
});
