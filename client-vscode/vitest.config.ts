import { defineConfig } from 'vitest/config';

/**
 * The client's unit tests (the pure modules). vitest comes from the repository root's
 * node_modules; the root's `npm test` runs these files too.
 */
export default defineConfig({
  test: { include: ['src/**/*.test.ts'] },
});
