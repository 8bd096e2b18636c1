/**
 * Loads a GGUF model with node-llama-cpp. The file is validated by our own GGUF reader
 * first, so a missing, foreign or truncated file gives a clear message with the fix
 * instead of a native error (or a native abort) from llama.cpp.
 */
import { statSync } from 'node:fs';
import type { LoadModelOptions, LoadModelResult, ModelInfo } from '../completionModel.js';
import type { Logger } from '../../util/logger.js';
import { kvArray, kvString, readGgufHeader, type GgufHeader } from '../gguf/ggufReader.js';
import { GgufValueType } from '../gguf/ggufTypes.js';
import { hyperparameterProblem } from '../gguf/hyperparameters.js';
import {
  CONTROL_TRAINED_KEY, declaredLayoutOf, ECHO_LINES_KEY, isEchoLineCount, LAYOUT_KEY, NEED_THRESHOLD_KEY, TRIGGER_SOFTMAX_KEY, triggerSoftmaxOf,
} from '../reposhapleyKeys.js';
import { scanSpecialTokens } from './specialTokenIds.js';
import { governThreads } from './threadGovernor.js';
import { acquireRuntime, type RuntimeLease } from './llamaRuntime.js';
import { resolveThreads } from '../threads.js';
import { LlamaCompletionModel } from './llamaCompletionModel.js';

/** Context size when the user sets none: the training context, at most this. */
export const DEFAULT_MAX_CONTEXT = 4096;

/**
 * Models up to this size are read into memory instead of memory-mapped: a mapped file that is
 * truncated or overwritten in place while it is loaded (`cp new.gguf model.gguf`) kills the model
 * host with SIGBUS, and with the CPU's repacked weights (AMX) the mapped pages stay resident beside
 * the copy (the 0.5B's host: 1,241 MB mapped against 924–933 MB read, for 0.3–0.5 s of load time).
 * Larger models are mapped (reading them into RAM would cost too much); replace those by writing
 * a new file and renaming it over the old one.
 */
const MMAP_ABOVE_BYTES = 1024 ** 3;

const SETTING_HINT = 'Set reposhapley.modelPath to a GGUF model file, or leave it empty to use the bundled default model.';

/**
 * Load the model at `options.path`. Never throws for expected failures: a missing file is
 * `missing`, a file that is not a usable GGUF is `invalid`, and a failure inside
 * llama.cpp (no binary, out of memory, unsupported architecture) is `error`.
 */
export async function loadLlamaModel(options: LoadModelOptions, logger: Logger): Promise<LoadModelResult> {
  const started = performance.now();
  // A hash-pinned file is one llama.cpp loads (CI loads the pins): its checks, which parse the whole
  // vocabulary in JS (~0.5 s for Qwen's), run beside the load instead of before it.
  const checks = checkFiles(options);
  checks.catch(() => undefined); // awaited below; a load that fails first must not leave it unhandled
  if (!options.hashPinned) {
    const checked = await checks;
    if (checked.kind !== 'ok') return checked;
  }
  const threads = resolveThreads(options.threads);
  if (threads < options.threads) {
    logger.warn(`threads ${options.threads} asked for, ${threads} used: this machine has ${threads} cores, ` +
      'and llama.cpp threads beyond them spin for cores they cannot get (seconds per completion)');
  }
  let lease: RuntimeLease | undefined;
  const llamaErrors = recentLlamaErrors(logger);
  try {
    const checkedAt = performance.now();
    lease = await acquireRuntime(llamaErrors.logger);
    const runtimeAt = performance.now();
    const useMmap = statSync(options.path).size > MMAP_ABOVE_BYTES;
    const model = await lease.llama.loadModel({ modelPath: options.path, gpuLayers: options.gpuLayers, useMmap });
    const checked = await checks;
    if (checked.kind !== 'ok') {
      await model.dispose();
      lease.release();
      return checked;
    }
    // Where a cold start's load goes (docs/benchmarks.md, "Cold start").
    logger.debug(`load: file checks ${options.hashPinned ? 'beside the load' : `${Math.round(checkedAt - started)} ms`}, ` +
      `llama.cpp runtime ${Math.round(runtimeAt - checkedAt)} ms, weights ${Math.round(performance.now() - runtimeAt)} ms (${useMmap ? 'mapped' : 'read'})`);
    const contextSize = options.contextSize && options.contextSize > 0
      ? Math.floor(options.contextSize)
      : Math.min(model.trainContextSize || DEFAULT_MAX_CONTEXT, DEFAULT_MAX_CONTEXT, options.contextNeeded || Infinity);
    const info = describeModel(options.path, checked.header, logger, {
      contextSize, threads, gpuLayers: model.gpuLayers,
    });
    logger.info(`loaded ${info.name ?? info.architecture} from ${options.path}: vocabulary ${info.vocabularySize}, ` +
      `context ${contextSize}, threads ${threads}, GPU layers ${model.gpuLayers}, control tokens ${info.hasControlTokens}` +
      (options.adapterPath ? `, LoRA adapter ${options.adapterPath}` : ''));
    const settings = { contextSize, threads, flashAttention: options.flashAttention ?? false, batchSize: options.batchSize, adapterPath: options.adapterPath,
      ...(options.shiftedReuseMinTokens ? { shiftedReuseMinTokens: options.shiftedReuseMinTokens } : {}) };
    const stopGoverning = options.adaptiveThreads ? governThreads(lease.llama, threads, logger) : () => {};
    const release = lease.release;
    return { kind: 'ok', model: new LlamaCompletionModel(model, info, settings, logger, () => { stopGoverning(); release(); }) };
  } catch (error) {
    // node-llama-cpp says only "Failed to load model"; llama.cpp logged why, but its log lines
    // reach us through the event loop and may still be queued: let them arrive (a failed load is rare).
    await new Promise((resolve) => setTimeout(resolve, LOG_DRAIN_MS));
    lease?.release();
    const why = llamaErrors.lines.length > 0 ? ` (llama.cpp: ${llamaErrors.lines.join('; ')})` : '';
    return { kind: 'error', message: `Could not load model ${options.path}: ${(error as Error).message}${why}` };
  }
}

/** The model file's checks, then the adapter's against it: the header on success, else why not. */
async function checkFiles(options: LoadModelOptions): Promise<ValidatedFile> {
  const checked = await validateModelFile(options.path);
  if (checked.kind !== 'ok') return checked;
  const adapterProblem = options.adapterPath ? await adapterFileProblem(options.adapterPath, checked.header) : undefined;
  return adapterProblem ? { kind: 'invalid', message: adapterProblem } : checked;
}

/** How long a failed load waits for llama.cpp's last log lines. */
const LOG_DRAIN_MS = 100;

/** A logger that also keeps the last few llama.cpp error lines, to name the cause of a failed load. */
function recentLlamaErrors(logger: Logger): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  const prefix = 'llama.cpp: ';
  return {
    lines,
    logger: {
      debug: (message) => logger.debug(message),
      info: (message) => logger.info(message),
      warn: (message) => logger.warn(message),
      error(message) {
        if (message.startsWith(prefix)) {
          lines.push(message.slice(prefix.length).replace(/\s+/g, ' ').trim());
          if (lines.length > 3) lines.shift();
        }
        logger.error(message);
      },
    },
  };
}

type ValidatedFile = { kind: 'ok'; header: GgufHeader } | { kind: 'missing' | 'invalid'; message: string };

/** Check existence, GGUF structure, file length and the metadata llama.cpp cannot do without. */
export async function validateModelFile(path: string): Promise<ValidatedFile> {
  if (path.trim() === '') return { kind: 'missing', message: `No model file configured. ${SETTING_HINT}` };
  const read = await readGgufHeader(path);
  if (read.kind !== 'ok') {
    if (read.kind === 'missing') return { kind: 'missing', message: `Model file not found: ${path}. ${SETTING_HINT}` };
    return { kind: 'invalid', message: `${read.message}. Download or export the model again, or point reposhapley.modelPath at a valid GGUF file.` };
  }
  const header = read.header;
  const missing = ['general.architecture', 'tokenizer.ggml.model'].filter((key) => kvString(header, key) === undefined);
  if (!kvArray(header, 'tokenizer.ggml.tokens')) missing.push('tokenizer.ggml.tokens');
  if (missing.length > 0) {
    return { kind: 'invalid', message: `${path} is a GGUF file but not a usable language model: it lacks ${missing.join(', ')}. ${SETTING_HINT}` };
  }
  if (header.tensors.length === 0) {
    return { kind: 'invalid', message: `${path} holds only a vocabulary (no weights). ${SETTING_HINT}` };
  }
  const problem = hyperparameterProblem(header);
  if (problem) {
    return { kind: 'invalid', message: `${path} is not a usable model: ${problem} (llama.cpp would abort on it). Download or export the model again. ${SETTING_HINT}` };
  }
  return read;
}

/**
 * Why llama.cpp would refuse the LoRA adapter at `path` for the model with `model`'s header, or
 * undefined when it fits: an adapter GGUF of the model's architecture whose every
 * `W.lora_a` / `W.lora_b` pair names one of the model's weights with matching shapes
 * (llama.cpp checks the same and fails the context rather than the file).
 */
export async function adapterFileProblem(path: string, model: GgufHeader): Promise<string | undefined> {
  const fix = 'Write it again with models/train/lora_gguf.py from the fine-tune of this model, or clear the adapter setting.';
  const read = await readGgufHeader(path);
  if (read.kind === 'missing') return `LoRA adapter not found: ${path}. ${fix}`;
  if (read.kind !== 'ok') return `LoRA adapter ${path}: ${read.message}. ${fix}`;
  const adapter = read.header;
  if (kvString(adapter, 'general.type') !== 'adapter' || kvString(adapter, 'adapter.type') !== 'lora') {
    return `${path} is not a LoRA adapter GGUF (general.type "adapter", adapter.type "lora"). ${fix}`;
  }
  // llama.cpp asserts (aborting the process) on these keys' types rather than failing the load.
  const alpha = adapter.kv.get('adapter.lora.alpha');
  if (alpha && alpha.type !== GgufValueType.FLOAT32) return `LoRA adapter ${path}: adapter.lora.alpha must be a float32. ${fix}`;
  const invocation = adapter.kv.get('adapter.alora.invocation_tokens');
  if (invocation && !(invocation.type === GgufValueType.ARRAY && invocation.elementType === GgufValueType.UINT32)) {
    return `LoRA adapter ${path}: adapter.alora.invocation_tokens must be an array of uint32. ${fix}`;
  }
  const [own, base] = [kvString(adapter, 'general.architecture'), kvString(model, 'general.architecture')];
  if (own !== base) return `LoRA adapter ${path} is for ${own ?? 'no architecture'}, the model is ${base}. ${fix}`;
  const weights = new Map(model.tensors.map((t) => [t.name, t.ne]));
  const tensors = new Map(adapter.tensors.map((t) => [t.name, t.ne]));
  for (const [name, a] of tensors) {
    if (!name.endsWith('.lora_a')) continue;
    const target = name.slice(0, -'.lora_a'.length);
    const [w, b] = [weights.get(target), tensors.get(`${target}.lora_b`)];
    if (!w) return `LoRA adapter ${path} adapts ${target}, which the model does not have. ${fix}`;
    if (!b || a[0] !== w[0] || b[1] !== w[1] || a[1] !== b[0]) {
      return `LoRA adapter ${path}: ${target}'s adapters do not fit its shape [${w.join(', ')}]. ${fix}`;
    }
  }
  return undefined;
}

function describeModel(
  path: string, header: GgufHeader, logger: Logger,
  runtime: { contextSize: number; threads: number; gpuLayers: number },
): ModelInfo {
  const scan = scanSpecialTokens(header);
  for (const warning of scan.warnings) logger.warn(warning);
  const addBos = header.kv.get('tokenizer.ggml.add_bos_token');
  return {
    path,
    architecture: kvString(header, 'general.architecture') ?? 'unknown',
    name: kvString(header, 'general.name'),
    contextSize: runtime.contextSize,
    vocabularySize: kvArray(header, 'tokenizer.ggml.tokens')?.length ?? 0,
    special: scan.special,
    hasControlTokens: scan.hasControlTokens,
    controlTokensTrained: scan.hasControlTokens && header.kv.get(CONTROL_TRAINED_KEY)?.value !== false,
    needThreshold: recordedThreshold(header),
    echoLines: recordedEchoLines(header),
    declaredLayout: declaredLayoutOf(kvString(header, LAYOUT_KEY)),
    triggerSoftmax: triggerSoftmaxOf(kvString(header, TRIGGER_SOFTMAX_KEY)),
    vocabularyDecisions: true,
    fimLayout: scan.fimLayout,
    addBeginOfText: addBos?.type === GgufValueType.BOOL ? Boolean(addBos.value) : undefined,
    gpuLayers: runtime.gpuLayers,
    threads: runtime.threads,
  };
}

/** Prefix lines to echo after <MID>: a small whole number when recorded, else 0. */
function recordedEchoLines(header: GgufHeader): number {
  const value = Number(header.kv.get(ECHO_LINES_KEY)?.value ?? 0);
  return isEchoLineCount(value) ? value : 0;
}

/** The model's recorded t_c, when it is a number in [0, 1]. */
function recordedThreshold(header: GgufHeader): number | undefined {
  const value = header.kv.get(NEED_THRESHOLD_KEY)?.value;
  return typeof value === 'number' && value >= 0 && value <= 1 ? value : undefined;
}
