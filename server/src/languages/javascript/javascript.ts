/**
 * JavaScript (also JSX, ES modules and CommonJS): tree-sitter-javascript, whose grammar parses JSX.
 * The rules are TypeScript's (scriptLanguage.ts); README.md says what they cover.
 */
import type { CodeLanguage } from '../language.js';
import { scriptLanguage } from './scriptLanguage.js';

const javascript: CodeLanguage = scriptLanguage({
  id: 'javascript',
  grammarOf: () => ({ package: 'tree-sitter-javascript', wasm: 'tree-sitter-javascript.wasm' }),
  rootMarkers: ['package.json', 'jsconfig.json'],
  topLevelStarts: [],
});

export default javascript;
