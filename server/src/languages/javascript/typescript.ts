/**
 * TypeScript: tree-sitter-typescript for .ts/.mts/.cts (and .d.ts), its tsx grammar for .tsx
 * (`<T>x` is a cast in one and an element in the other). The rules are shared with JavaScript
 * (scriptLanguage.ts); README.md says what they cover.
 */
import type { CodeLanguage } from '../language.js';
import type { Grammar } from '../syntaxTree.js';
import { scriptLanguage } from './scriptLanguage.js';

const TYPESCRIPT: Grammar = { package: 'tree-sitter-typescript', wasm: 'tree-sitter-typescript.wasm' };
const TSX: Grammar = { package: 'tree-sitter-typescript', wasm: 'tree-sitter-tsx.wasm' };

const typescript: CodeLanguage = scriptLanguage({
  id: 'typescript',
  grammarOf: (relPath) => (relPath.toLowerCase().endsWith('.tsx') ? TSX : TYPESCRIPT),
  rootMarkers: ['tsconfig.json', 'package.json'],
  topLevelStarts: ['interface ', 'type ', 'enum ', 'declare ', 'abstract class '],
});

export default typescript;
