/**
 * The V8 flags the language server and its model host run with. A young generation of 1 MB
 * semi-spaces instead of V8's 16 MB keeps each process ~20 MB smaller, and the model host's growth
 * per connected window smaller still, for no measured cost: index time per MB and completion
 * latency unchanged (docs/benchmarks.md, "Beside other work", memory). Editors that start the
 * server pass them before the script (`node --max-semi-space-size=1 main.js serve --stdio`).
 */
export const SERVER_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=1'];
