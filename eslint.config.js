// Only what no other check covers: short functions in the server (the layering is
// .dependency-cruiser.cjs's, the types tsc's). Part of `npm test` (`npm run check:functions`).
import tsParser from '@typescript-eslint/parser';

export default [
  {
    files: ['server/src/**/*.ts'],
    ignores: ['**/*.test.ts'],
    languageOptions: { parser: tsParser },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      // Counted as a reader sees them: blank lines and comments included.
      'max-lines-per-function': ['error', { max: 60, skipBlankLines: false, skipComments: false }],
    },
  },
];
