/**
 * The CompletionModel adapter that keeps llama.cpp out of the server's process: every
 * evaluation runs in a model host (modelHost.ts), so a native abort ends the host, not the
 * language server. Tokenizing stays here (a vocab-only load of the same file), because the
 * prompt module tokenizes line by line and a round trip per call would cost more than the call.
 *
 * When the host dies, everything it owed rejects with {@link ModelHostExitedError} and
 * {@link ChildProcessCompletionModel.failure} says why; the model manager then stops using it.
 */
import type {
  BinaryDecision, CompletionModel, GenerationOptions, GenerationResult, LoadModelOptions, LoadModelResult, ModelInfo, ModelSession,
} from '../completionModel.js';
import { fileStamp } from '../../util/fileStamp.js';
import type { Logger } from '../../util/logger.js';
import type { ModelVocabulary } from '../llama/llamaVocabulary.js';
import { ModelHostConnection, ModelHostExitedError, type ModelHostOptions } from './hostConnection.js';
import type { OperationResults, SessionOperation } from './hostProtocol.js';

export { ModelHostExitedError } from './hostConnection.js';

/**
 * Loads `options.path` in its model host, shared with the other servers that load it (started
 * if none runs). A host that dies while loading (llama.cpp asserted on the file) is an `error`
 * that names the cause; the server process is untouched.
 */
export async function loadModelInChildProcess(
  options: LoadModelOptions, logger: Logger, hostOptions: ModelHostOptions = {},
): Promise<LoadModelResult> {
  const stamp = fileStamp(options.path);
  const started = performance.now();
  let host: ModelHostConnection;
  try {
    host = await ModelHostConnection.open(options, logger, hostOptions);
  } catch (error) {
    return { kind: 'error', message: `Could not load model ${options.path}: ${(error as Error).message}` };
  }
  // This process needs llama.cpp's runtime for the vocabulary: started while the host loads.
  const vocabularyModule = import('../llama/llamaVocabulary.js');
  void vocabularyModule.then((module) => module.prepareVocabularyRuntime(), () => undefined);
  // A vocabulary llama.cpp rejects would abort this process, so the server reads it only from a
  // file llama.cpp accepted: a hash-pinned one (a pulled catalog or derived model) at once,
  // alongside the host's load (1.8 s of a 13 s cold start on an AVX2 CPU); any other file once
  // the host has loaded it.
  const early = options.hashPinned ? readVocabulary(vocabularyModule, options.path, logger) : undefined;
  try {
    const { value: reply } = await host.request({ op: 'load', options });
    const loadedAt = performance.now();
    if (reply.kind !== 'ok') {
      await Promise.all([discard(early), host.dispose()]);
      return reply;
    }
    // The vocabulary must come from the file the host checked and loaded.
    if (fileStamp(options.path) !== stamp) {
      await Promise.all([discard(early), host.dispose()]);
      return { kind: 'error', message: `${options.path} changed while it was loading; it is loaded again at the next completion.` };
    }
    const vocabulary = await (early ?? readVocabulary(vocabularyModule, options.path, logger));
    logger.debug(
      `model host loaded in ${seconds(loadedAt - started)}, the server's vocabulary ready at ${seconds(performance.now() - started)} ` +
      `(${early ? 'read alongside the load: the file is hash-pinned' : 'read after the load'})`,
    );
    return { kind: 'ok', model: new ChildProcessCompletionModel(host, reply.info, vocabulary) };
  } catch (error) {
    await Promise.all([discard(early), host.dispose()]);
    if (error instanceof ModelHostExitedError) {
      return {
        kind: 'error',
        message: `llama.cpp stopped while loading ${options.path}: ${error.message}. The file is not loaded again until it ` +
          'changes; download or export the model again, or set reposhapley.modelPath to another GGUF file.',
      };
    }
    return { kind: 'error', message: `Could not load model ${options.path}: ${(error as Error).message}` };
  }
}

type VocabularyModule = typeof import('../llama/llamaVocabulary.js');

/** The vocabulary read, its rejection marked handled so that one awaited later cannot go unhandled first. */
function readVocabulary(module: Promise<VocabularyModule>, modelPath: string, logger: Logger): Promise<ModelVocabulary> {
  const reading = module.then((loaded) => loaded.loadLlamaVocabulary(modelPath, logger));
  void reading.catch(() => undefined);
  return reading;
}

/** Releases a vocabulary read that is no longer wanted, whenever it finishes. */
async function discard(reading: Promise<ModelVocabulary> | undefined): Promise<void> {
  if (reading) await reading.then((vocabulary) => vocabulary.dispose(), () => undefined);
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(2)} s`;
}

export class ChildProcessCompletionModel implements CompletionModel {
  private disposed = false;

  constructor(private readonly host: ModelHostConnection, readonly info: ModelInfo, private readonly vocabulary: ModelVocabulary) {}

  /** Set once the host died: why, in one line. Every later operation rejects. */
  get failure(): string | undefined {
    return this.host.failure;
  }

  get failureRetryable(): boolean {
    return this.host.failureRetryable;
  }

  /** The process evaluating the model (memory reports, tests). */
  get hostPid(): number | undefined {
    return this.host.pid;
  }

  tokenize(text: string): number[] {
    return this.vocabulary.tokenize(text);
  }

  detokenize(tokens: number[], specialTokens = false): string {
    return this.vocabulary.detokenize(tokens, specialTokens);
  }

  async createSession(): Promise<ModelSession> {
    if (this.disposed) throw new Error('createSession() on a disposed model');
    const { value } = await this.host.request({ op: 'createSession' });
    return new ChildProcessSession(this.host, value);
  }

  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    await this.host.dispose();
    await this.vocabulary.dispose();
  }
}

type Operation<K extends SessionOperation['op']> = Omit<Extract<SessionOperation, { op: K }>, 'session'>;

/** A session in the host: each call is one request; the host's session keeps them in order. */
class ChildProcessSession implements ModelSession {
  private lastReused = 0;
  private totalReused = 0;
  private sharedWaitMs = 0;

  constructor(private readonly host: ModelHostConnection, private readonly id: number) {}

  get totalSharedWaitMs(): number {
    return this.sharedWaitMs;
  }

  get lastReusedTokens(): number {
    return this.lastReused;
  }

  get totalReusedTokens(): number {
    return this.totalReused;
  }

  decide(tokens: number[], first: number, second: number, signal?: AbortSignal): Promise<BinaryDecision> {
    return this.run<'decide'>({ op: 'decide', tokens, first, second }, signal);
  }

  decideSequence(tokens: number[], first: number, second: number, steps: number, signal?: AbortSignal): Promise<BinaryDecision[]> {
    return this.run<'decideSequence'>({ op: 'decideSequence', tokens, first, second, steps }, signal);
  }

  generate(tokens: number[], options: GenerationOptions, signal?: AbortSignal): Promise<GenerationResult> {
    // As in the in-process session: aborted before it starts, it never runs.
    if (signal?.aborted) return Promise.resolve({ text: '', tokens: [], stoppedBy: 'aborted' });
    return this.run<'generate'>({ op: 'generate', tokens, options }, signal);
  }

  logLikelihood(tokens: number[], target: number[], signal?: AbortSignal): Promise<number> {
    return this.run<'logLikelihood'>({ op: 'logLikelihood', tokens, target }, signal);
  }

  async dispose(): Promise<void> {
    if (!this.host.isRunning) return;
    await this.host.request({ op: 'disposeSession', session: this.id }).catch(() => undefined);
  }

  private async run<K extends SessionOperation['op']>(operation: Operation<K>, signal?: AbortSignal): Promise<OperationResults[K]> {
    const request = { ...operation, session: this.id } as Extract<SessionOperation, { op: K }>;
    signal?.throwIfAborted();
    try {
      const { value, reuse, waitedMs } = await this.host.request(request, signal);
      this.sharedWaitMs += waitedMs ?? 0;
      if (reuse) {
        this.lastReused = reuse.last;
        this.totalReused = reuse.total;
      }
      return value;
    } catch (error) {
      // The port rejects an aborted operation with the signal's own reason.
      if (signal?.aborted && (error as Error).name === 'AbortError') throw signal.reason;
      throw error;
    }
  }
}
