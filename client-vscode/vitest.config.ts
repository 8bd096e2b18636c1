import { defineConfig } from 'vitest/config';

/**
 * The client's unit tests (the pure modules). vitest comes from the repository root's
 * node_modules: `npm test` here, or add 'client-vscode/src/**\/*.test.ts' to the root config.
 */
export default defineConfig({
  test: { include: ['src/**/*.test.ts'] },
});
