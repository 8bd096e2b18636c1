/**
 * The Node and V8 flags the language server and its model host run with, for memory: every editor
 * window runs a server. A young generation of 1 MB semi-spaces instead of V8's 16 MB keeps each
 * process ~20 MB smaller, and the model host's growth per connected window smaller still. One V8
 * worker thread instead of four (`--v8-pool-size`) takes another ~8 MB off a server that has
 * indexed a workspace: fewer thread stacks and malloc arenas, and on the 2–4 cores the product
 * targets the model host wants the others anyway. Neither had a measured cost: index time per MB,
 * edit updates and completion latency unchanged (docs/benchmarks.md, "Beside other work", memory).
 * Editors that start the server pass them before the script
 * (`node --max-semi-space-size=1 --v8-pool-size=1 main.js serve --stdio`).
 */
export const SERVER_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=1', '--v8-pool-size=1'];
