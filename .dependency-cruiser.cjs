/**
 * The layering rules of docs/architecture.md, checked by `npm run check:layers` (part of `npm test`).
 * Type-only imports count too (tsPreCompilationDeps): a circle of types is still a circle to a reader.
 */
const SERVER = '^server/src/';
/** Domain layers in the order data flows; a layer may import those before it, never those after. */
const FLOW = ['languages', 'workspace', 'indexing', 'retrieval', 'prompt', 'control', 'completion'];

const flowRules = FLOW.slice(0, -1).map((layer, index) => ({
  name: `flow-${layer}`,
  comment: `${layer}/ comes before ${FLOW.slice(index + 1).join(', ')} in the domain flow and may not import them`,
  severity: 'error',
  from: { path: `${SERVER}${layer}/` },
  to: { path: `${SERVER}(${FLOW.slice(index + 1).join('|')})/` },
}));

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'No file imports another that imports it back, directly or through others',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'lsp-only-in-lsp',
      comment: 'Only server/src/lsp/ and the CLI entry speak LSP; domain code never sees the connection',
      severity: 'error',
      from: { path: SERVER, pathNot: `${SERVER}(lsp/|main\\.ts|cli/serve\\.ts)` },
      to: { path: '(^|node_modules/)vscode-languageserver(/|$)' },
    },
    {
      name: 'llama-only-in-model-llama',
      comment: 'model/llama/ is the only place in the server that imports node-llama-cpp',
      severity: 'error',
      from: { path: SERVER, pathNot: `${SERVER}model/llama/` },
      to: { path: '(^|node_modules/)node-llama-cpp(/|$)' },
    },
    {
      name: 'server-not-on-bench-or-tests',
      comment: 'Nothing in the server imports bench/ or test/ (its unit tests may use test/support/)',
      severity: 'error',
      from: { path: SERVER, pathNot: '\\.test\\.ts$' },
      to: { path: '^(bench|test)/' },
    },
    {
      name: 'client-imports-shared-only',
      comment: 'The VS Code client imports shared/ and nothing else of the project',
      severity: 'error',
      from: { path: '^client-vscode/src/' },
      to: { path: '^(server|bench|test|models)/' },
    },
    {
      name: 'shared-is-a-leaf',
      comment: 'shared/ holds types and schemas both sides import; it imports nothing of the project',
      severity: 'error',
      from: { path: '^shared/' },
      to: { path: '^(server|bench|test|client-vscode|models)/' },
    },
    ...flowRules,
  ],
  options: {
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)(node_modules|dist|out)/' },
  },
};
