/**
 * The narrow port between the completion pipeline and a language model.
 * model/llama/ implements it with node-llama-cpp; tests of orchestration may fake it.
 */
import type { LanguageId } from '../../../shared/languages.js';
import type { StopReason } from '../../../shared/messages.js';
import type { DeclaredLayout, TriggerSoftmax } from './reposhapleyKeys.js';

/** Ids of the special tokens a prompt layout needs; undefined where the model lacks one. */
export interface SpecialTokenIds {
  fimPrefix?: number;
  fimSuffix?: number;
  fimMiddle?: number;
  endOfText?: number;
  /** Begin-of-text (BOS) id from GGUF metadata; see {@link ModelInfo.addBeginOfText}. */
  beginOfText?: number;
  /**
   * Repository-format markers (`<|repo_name|>`, `<|file_sep|>`): models pretrained on whole
   * repositories (Qwen2.5-Coder) read cross-file context as other files after them.
   */
  repoName?: number;
  fileSeparator?: number;
  /** RepoShapley control tokens (§3.4); present only in models trained with them. */
  need?: number;
  done?: number;
  keep?: number;
  drop?: number;
  select?: number;
  /** `<C_i>` and `</C_i>` for i = 1..10, index 0 is C_1. */
  chunkOpen?: number[];
  chunkClose?: number[];
}

/**
 * The ids of RepoShapley's control tokens a model has (none for a plain code model): read by
 * decide(), never generated, so both backends mask them in generation.
 */
export function controlDecisionIds(special: SpecialTokenIds): number[] {
  const ids = [special.need, special.done, special.keep, special.drop, special.select, ...(special.chunkOpen ?? []), ...(special.chunkClose ?? [])];
  return ids.filter((id): id is number => id !== undefined);
}

/** What a loaded model says about itself. */
export interface ModelInfo {
  path: string;
  /** Architecture from GGUF metadata, e.g. `llama`. */
  architecture: string;
  /** Model name from GGUF metadata, if any. */
  name?: string;
  contextSize: number;
  vocabularySize: number;
  special: SpecialTokenIds;
  /** True when need/done/keep/drop/select and the chunk delimiters all exist. */
  hasControlTokens: boolean;
  /**
   * True when the model also learned to use them: false for our base model before distillation
   * (GGUF key `reposhapley.control_tokens_trained`); models that do not say are trusted.
   */
  controlTokensTrained: boolean;
  /**
   * The languages the control rows were trained on, when the pack says; `auto` runs `full` in
   * others. Packs that do not say were made by models/, which trains on Python only.
   */
  controlLanguages?: readonly LanguageId[];
  /** t_c recorded by the export (GGUF `reposhapley.need_threshold`), used when the user sets none. */
  needThreshold?: number;
  /** Prefix lines repeated after <MID> (GGUF `reposhapley.echo_lines`, prompt/sequences.ts); 0 when unset. */
  echoLines: number;
  /**
   * The generation layout a derived pretrained model keeps (GGUF `reposhapley.layout`: `repo-fim`
   * or `repo-fim-line` for Qwen2.5-Coder with a control pack); undefined for the RepoShapley sequences.
   */
  declaredLayout?: DeclaredLayout;
  /** How the trigger's P(NEED) is read (GGUF `reposhapley.trigger_softmax`); `pair` when unset. */
  triggerSoftmax: TriggerSoftmax;
  /**
   * Whether decide() reports P(first) over the whole vocabulary (BinaryDecision
   * `vocabularyProbabilityFirst`): the local adapter does, a llama-server reports only the pair.
   */
  vocabularyDecisions: boolean;
  /**
   * Which known FIM layout the FIM ids belong to (`reposhapley` (= Qwen2.5-Coder texts),
   * `starcoder`, `codellama`, `deepseek-coder`), `metadata` when GGUF metadata named ids
   * whose texts match no known layout, undefined when the model has no FIM tokens.
   */
  fimLayout?: string;
  /** Whether the model expects a BOS token first (GGUF `tokenizer.ggml.add_bos_token`); tokenize() never adds it. */
  addBeginOfText?: boolean;
  /** Layers offloaded to a GPU (0 on CPU). */
  gpuLayers: number;
  threads: number;
}

/** Stop rules for generation. */
export interface GenerationOptions {
  maxTokens: number;
  /** Stop at the first newline (after some non-whitespace text) for single-line completions. */
  singleLine: boolean;
  /** Extra stop strings; generation ends before them. */
  stopStrings?: string[];
  /**
   * Logit penalty per earlier occurrence of a token among the completion's own last 64 tokens
   * (greedy loops of small models); default the runtime's (llama: 0.3), 0 turns it off.
   */
  loopPenalty?: number;
  /**
   * Stop when the completion writes one stretch three times back to back and keep the first
   * copy (stopRules.ts findRepetition); default true.
   */
  repetitionStop?: boolean;
}

/** Result of a generation. */
export interface GenerationResult {
  text: string;
  tokens: number[];
  stoppedBy: StopReason;
}

/** Probability split between two tokens at the next position (two-token softmax). */
export interface BinaryDecision {
  /** P(first) / (P(first) + P(second)). */
  probabilityFirst: number;
  /**
   * Logits of the two tokens. They may be shifted by a per-position constant (the llama
   * adapter reports ln P over the whole vocabulary, i.e. log-softmax): only their
   * difference is meaningful, and probabilityFirst = sigmoid(logitFirst - logitSecond).
   */
  logitFirst: number;
  logitSecond: number;
  /**
   * P(first) over the whole vocabulary, where the backend knows the full distribution (the local
   * llama adapter); undefined where it reports only the two tokens (a llama-server).
   */
  vocabularyProbabilityFirst?: number;
}

/**
 * Thrown when an operation needs more positions than the session's context holds
 * (prompt tokens plus decisions, target or maxTokens). The prompt module budgets tokens so
 * this means a budgeting bug upstream, hence an exception rather than a result value.
 */
export class ContextOverflowError extends Error {
  constructor(
    readonly operation: string,
    readonly neededTokens: number,
    readonly contextSize: number,
  ) {
    super(`${operation} needs ${neededTokens} tokens but the model context holds ${contextSize}; shrink the prompt budgets or raise the context size`);
    this.name = 'ContextOverflowError';
  }
}

/**
 * A session holds model state (a KV cache) for one sequence of tokens. Operations take the
 * full token sequence; the session reuses whatever prefix it already evaluated and
 * counts reused tokens. One session serves one request at a time: concurrent calls queue.
 *
 * Errors: an operation that does not fit the context rejects with {@link ContextOverflowError}
 * (generate() only when the prompt leaves no room for one token: it generates at most what fits);
 * an aborted decide/decideSequence/logLikelihood rejects with the signal's reason (an
 * AbortError), while an aborted generate() resolves with stoppedBy 'aborted' and the partial text.
 */
export interface ModelSession {
  /**
   * Probability of token `first` vs `second` right after `tokens`
   * (RepoShapley Algorithm 1 lines 3 and 15).
   */
  decide(tokens: number[], first: number, second: number, signal?: AbortSignal): Promise<BinaryDecision>;
  /**
   * A sequence of binary decisions: after `tokens`, for each step choose first or second by the
   * two-token softmax, append the chosen token, and continue (KEEP/DROP for K candidates).
   */
  decideSequence(
    tokens: number[], first: number, second: number, steps: number, signal?: AbortSignal,
  ): Promise<BinaryDecision[]>;
  /**
   * Greedy generation after `tokens`. Stops at end-of-text, EOS or any control token (not
   * included), at maxTokens, at a stop string or the single-line newline (text ends before it).
   * `tokens` of the result are those whose text lies wholly inside `text`.
   */
  generate(tokens: number[], options: GenerationOptions, signal?: AbortSignal): Promise<GenerationResult>;
  /**
   * Teacher-forced sum of ln p(target_t | tokens, target_<t) (ChunkShapley ℓ, unnormalized).
   * Each term is floored at ln(1e-45) (float32 underflow), so the sum is always finite.
   */
  logLikelihood(tokens: number[], target: number[], signal?: AbortSignal): Promise<number>;
  /** Tokens reused from the cache by the last operation, and in total. */
  readonly lastReusedTokens: number;
  readonly totalReusedTokens: number;
  /**
   * Milliseconds this session's operations waited, in all, while a model shared with other
   * servers evaluated theirs (another editor window's completion); unset where nothing is shared.
   */
  readonly totalSharedWaitMs?: number;
  /**
   * About how much an operation on `tokens` would cost now, in prompt tokens: those past what this
   * session has cached, plus a typical generation when `generating`. A shared evaluator serves the
   * least work first (model/childProcess/computeQueue.ts).
   */
  pendingWork?(tokens: number[], generating: boolean): number;
  /**
   * Where an evaluator shared by several sessions may let others run: called between prompt
   * chunks and between generated tokens of this session's operations with the work still left,
   * and may reject (the operation was cancelled while it waited), which ends the operation as an
   * abort would. The model host sets it to its compute queue's turn.
   */
  setPausePoint?(pause: ((remainingWork: number) => Promise<void>) | undefined): void;
  dispose(): Promise<void>;
}

/**
 * Reads the model's final hidden states (training tools only: control rows are trained against
 * them). Each call evaluates `prefix` (reusing what the previous call left of it), then each step
 * in turn, and returns h after the prefix and after every step.
 */
export interface HiddenStateReader {
  statesAfter(prefix: readonly number[], steps: readonly (readonly number[])[]): Promise<Float32Array[]>;
  dispose(): Promise<void>;
}

/** A loaded model. */
export interface CompletionModel {
  readonly info: ModelInfo;
  /**
   * Set once the model can no longer run (the process evaluating it died): why, in one line for
   * the user. Every later operation rejects. Adapters that run in this process leave it unset.
   */
  readonly failure?: string;
  /**
   * True when {@link failure} names no fault of the model (its shared host was stopped from
   * outside): the model may be loaded again at once rather than set aside until its file changes.
   */
  readonly failureRetryable?: boolean;
  /**
   * Tokenize plain text; special-token text is NOT parsed into special ids. An adapter that has
   * {@link tokenizeMany} may answer only text tokenized through it before, and throw otherwise.
   */
  tokenize(text: string): number[];
  /**
   * Tokenize many texts at once, for adapters that tokenize elsewhere (a model server): prompt
   * building prepares its lines through this (prompt/lineTokenizer.ts), then tokenize() answers.
   */
  tokenizeMany?(texts: readonly string[], signal?: AbortSignal): Promise<number[][]>;
  /** Text of tokens; special tokens are dropped unless `specialTokens` (for traces and debugging). */
  detokenize(tokens: number[], specialTokens?: boolean): string;
  createSession(): Promise<ModelSession>;
  /** A hidden-state reader with its own context, where the runtime offers one (llama.cpp does). */
  createHiddenStateReader?(): Promise<HiddenStateReader>;
  dispose(): Promise<void>;
}

/**
 * Thrown by a synchronous tokenize() of text not tokenized yet, by an adapter that tokenizes
 * elsewhere (a model host or server) and answers tokenize() only for text it prepared with
 * tokenizeMany().
 */
export class UntokenizedTextError extends Error {
  constructor(readonly text: string) {
    super(`text not tokenized yet (the model tokenizes in another process): ${JSON.stringify(text.slice(0, 40))}`);
    this.name = 'UntokenizedTextError';
  }
}

/** Options for loading a model. */
export interface LoadModelOptions {
  /** A GGUF file, or with {@link server} the model server's URL. */
  path: string;
  /** Set when `path` is a llama-server URL (model/remote/). */
  server?: { apiKey?: string; timeoutMs: number };
  /**
   * `path` hashed to a pinned SHA-256 when it was pulled and has not changed since (its sidecar,
   * modelStore/sidecar.ts): a file llama.cpp is known to load. The model host's adapter then
   * reads the server's copy of the vocabulary while the host loads the file, not after it.
   */
  hashPinned?: boolean;
  /** CPU threads, at most the machine's cores; 0 = half of them, at least one (llama/llamaRuntime.ts). */
  threads: number;
  /**
   * Use fewer than `threads` while other processes keep cores busy (llama/threadGovernor.ts): the
   * adaptiveThreads setting. Local models only.
   */
  adaptiveThreads?: boolean;
  gpuLayers: 'auto' | number;
  /** Positions per session, exactly; default the model's trained context up to 4,096 and `contextNeeded`. */
  contextSize?: number;
  /**
   * The most positions a session will use (the prompt budgets': prompt/budget.ts contextSizeFor):
   * the default context stops there, since each session's KV cache and attention scratch grow with it.
   */
  contextNeeded?: number;
  /** Tokens evaluated per batch in a prefill; default llama.cpp's (512). See docs/benchmarks.md. */
  batchSize?: number;
  /**
   * Use flash attention (default false). On llama.cpp's CPU backend it makes logits depend
   * on how a prompt was split into batches (measured up to 3e-3 in a log-probability), so a
   * reused cache would no longer reproduce a fresh evaluation; without it they agree to ~1e-6.
   */
  flashAttention?: boolean;
  /**
   * A llama.cpp LoRA adapter GGUF applied to every context of the model (`--lora`): the control
   * fine-tune's adapters (models/train/control_finetune.py, lora_gguf.py). Local models only.
   */
  adapterPath?: string;
  /**
   * Sessions keep cached runs of at least this many tokens that moved in a new prompt (a prefix
   * window that slid, a nearby jump, a chunk both prompts carry), shifting them as llama-server's
   * `--cache-reuse` does. Faster, not exact: the completion server's choice (the kvShiftReuse
   * setting); the labeler and feature extraction leave it unset. Local models only.
   */
  shiftedReuseMinTokens?: number;
  /**
   * How the server reaches the model host (model/childProcess/): not part of the model, so not
   * part of what a host is shared by. Default: shared, idle for 300 s before it exits.
   */
  host?: HostConnectionOptions;
}

/** The sharedModelHost and modelHostIdleSeconds settings. */
export interface HostConnectionOptions {
  /** Share one host with every server of this user that loads the same file with the same options. */
  shared: boolean;
  /** Seconds a host with no server connected waits before it exits (0: at once). */
  idleSeconds: number;
}

/** Outcome of loading: a model, or a user-facing reason with the fix. */
export type LoadModelResult =
  | { kind: 'ok'; model: CompletionModel }
  | { kind: 'missing' | 'invalid' | 'error'; message: string };
