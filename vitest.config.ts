import { defineConfig } from 'vitest/config';

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
  },
});
