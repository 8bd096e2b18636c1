/**
 * The CompletionModel adapter that keeps llama.cpp out of the server's process: every
 * evaluation runs in a model host (modelHost.ts), shared by the servers that load the same model,
 * so a native abort ends the host, not the language server. Tokenizing runs there too, in batches:
 * the prompt module prepares a prompt's lines with {@link ChildProcessCompletionModel.tokenizeMany}
 * (prompt/lineTokenizer.ts `prepared`), then tokenize() answers from what came back. The server
 * thus loads no part of llama.cpp: a second window costs its index, not another vocabulary.
 *
 * When the host dies, everything it owed rejects with {@link ModelHostExitedError} and
 * {@link ChildProcessCompletionModel.failure} says why; the model manager then stops using it.
 */
import type {
  BinaryDecision, CompletionModel, GenerationOptions, GenerationResult, LoadModelOptions, LoadModelResult, ModelInfo, ModelSession,
} from '../completionModel.js';
import { PreparedTokens } from '../preparedTokens.js';
import { fileStamp } from '../../util/fileStamp.js';
import type { Logger } from '../../util/logger.js';
import { ModelHostConnection, ModelHostExitedError, type ModelHostOptions } from './hostConnection.js';
import type { OperationResults, SessionOperation, TokenPiece } from './hostProtocol.js';

export { ModelHostExitedError } from './hostConnection.js';

/** Texts per tokenize request, so that one message stays small. */
const TEXTS_PER_REQUEST = 2_000;

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
  try {
    const { value: reply } = await host.request({ op: 'load', options });
    if (reply.kind !== 'ok') {
      await host.dispose();
      return reply;
    }
    // The host loaded the file it was named after: one replaced meanwhile is loaded anew.
    if (fileStamp(options.path) !== stamp) {
      await host.dispose();
      return { kind: 'error', message: `${options.path} changed while it was loading; it is loaded again at the next completion.` };
    }
    logger.debug(`model host ${host.pid} has the model, ${((performance.now() - started) / 1000).toFixed(2)} s after the request`);
    return { kind: 'ok', model: new ChildProcessCompletionModel(host, reply.info) };
  } catch (error) {
    await host.dispose();
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

export class ChildProcessCompletionModel implements CompletionModel {
  private disposed = false;
  /** What tokenizeMany returned, for tokenize(). */
  private readonly prepared = new PreparedTokens();
  /** The text of each id the host has answered with, for detokenize(). */
  private readonly pieces = new Map<number, TokenPiece>();

  constructor(private readonly host: ModelHostConnection, readonly info: ModelInfo) {}

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

  /** Only text tokenized before by {@link tokenizeMany}; anything else throws {@link UntokenizedTextError}. */
  tokenize(text: string): number[] {
    return this.prepared.lookup(text);
  }

  /** Plain texts (special-token text stays text) tokenized by the host, in few requests; never queued behind an evaluation. */
  async tokenizeMany(texts: readonly string[], signal?: AbortSignal): Promise<number[][]> {
    const out: number[][] = [];
    for (let start = 0; start < texts.length; start += TEXTS_PER_REQUEST) {
      const { value } = await this.host.request({ op: 'tokenize', texts: texts.slice(start, start + TEXTS_PER_REQUEST) }, signal);
      out.push(...value.ids);
      for (const piece of value.pieces) this.pieces.set(piece.id, piece);
    }
    this.prepared.remember(texts, out);
    return out;
  }

  /** The text of ids the host has answered with (tokenized or generated here); others throw. */
  detokenize(tokens: number[], specialTokens = false): string {
    return tokens.map((id) => {
      const piece = this.pieces.get(id);
      if (!piece) throw new Error(`token ${id} has not come from the model host; detokenize only what it returned`);
      return piece.special && !specialTokens ? '' : piece.text;
    }).join('');
  }

  async createSession(): Promise<ModelSession> {
    if (this.disposed) throw new Error('createSession() on a disposed model');
    const { value } = await this.host.request({ op: 'createSession' });
    return new ChildProcessSession(this.host, value, (pieces) => pieces.forEach((piece) => this.pieces.set(piece.id, piece)));
  }

  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    await this.host.dispose();
  }
}

type Operation<K extends SessionOperation['op']> = Omit<Extract<SessionOperation, { op: K }>, 'session'>;

/** A session in the host: each call is one request; the host's session keeps them in order. */
class ChildProcessSession implements ModelSession {
  private lastReused = 0;
  private totalReused = 0;
  private sharedWaitMs = 0;

  constructor(
    private readonly host: ModelHostConnection,
    private readonly id: number,
    /** The model's detokenize() learns the generated ids' text. */
    private readonly learnPieces: (pieces: readonly TokenPiece[]) => void,
  ) {}

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
      const { value, reuse, waitedMs, pieces } = await this.host.request(request, signal);
      this.sharedWaitMs += waitedMs ?? 0;
      if (pieces) this.learnPieces(pieces);
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
