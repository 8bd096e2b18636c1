/**
 * The CompletionModel adapter over node-llama-cpp. model/llama/ is the only place in the
 * codebase that imports node-llama-cpp; everything else sees the narrow port.
 */
import { TokenBias, type LlamaModel, type Token } from 'node-llama-cpp';
import { controlDecisionIds, type CompletionModel, type HiddenStateReader, type ModelInfo, type ModelSession } from '../completionModel.js';
import { adapterOption } from './contextOptions.js';
import { createHiddenStateReader } from './hiddenStates.js';
import type { Logger } from '../../util/logger.js';
import { LlamaSession, type SessionModelHooks } from './llamaSession.js';

/** How sessions' contexts are created. */
export interface LlamaContextSettings {
  contextSize: number;
  threads: number;
  flashAttention: boolean;
  batchSize?: number;
  /** A LoRA adapter GGUF applied to every context (LoadModelOptions.adapterPath). */
  adapterPath?: string;
  /** LoadModelOptions.shiftedReuseMinTokens. */
  shiftedReuseMinTokens?: number;
}


/** A loaded GGUF model; each session gets its own llama.cpp context with one sequence. */
export class LlamaCompletionModel implements CompletionModel {
  private readonly sessions = new Set<ModelSession>();
  private readonly stopTokens = new Map<number, boolean>();
  private disposed = false;

  constructor(
    private readonly model: LlamaModel,
    readonly info: ModelInfo,
    private readonly settings: LlamaContextSettings,
    private readonly logger: Logger,
    /** Called once on dispose (releases the shared runtime's log routing). */
    private readonly onDispose: () => void,
  ) {}

  tokenize(text: string): number[] {
    // Special tokens off: file contents spelling "<NEED>" must stay text (PLATFORM-FACTS).
    return Array.from(this.model.tokenize(text, false));
  }

  detokenize(tokens: number[], specialTokens = false): string {
    return this.model.detokenize(tokens as Token[], specialTokens);
  }

  /**
   * A new session with its own context (KV cache of `contextSize` positions). Sessions are
   * meant to live long, so consecutive requests reuse their shared prefix; dispose them.
   */
  async createSession(): Promise<ModelSession> {
    if (this.disposed) throw new Error('createSession() on a disposed model');
    const started = performance.now();
    const context = await this.model.createContext({
      contextSize: this.settings.contextSize,
      sequences: 1,
      threads: this.settings.threads,
      flashAttention: this.settings.flashAttention,
      ...(this.settings.batchSize ? { batchSize: this.settings.batchSize } : {}),
      ...adapterOption(this.settings),
    });
    const sequence = context.getSequence({
      // Operations check their size first, so a shift means a bug; fail instead of silently
      // dropping the prompt's beginning.
      contextShift: { strategy: () => { throw new Error('context shift requested: a prompt exceeded the context'); } },
    });
    const limit = Math.min(this.settings.contextSize, sequence.contextSize);
    const session = new LlamaSession(
      context, sequence, limit, this.info.vocabularySize, this.sessionHooks(), () => this.sessions.delete(session),
    );
    this.sessions.add(session);
    this.logger.debug(`model session created in ${Math.round(performance.now() - started)} ms (context ${limit}, threads ${context.currentThreads})`);
    return session;
  }

  async createHiddenStateReader(): Promise<HiddenStateReader> {
    if (this.disposed) throw new Error('createHiddenStateReader() on a disposed model');
    return createHiddenStateReader(this.model, this.settings);
  }

  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    await Promise.all([...this.sessions].map((s) => s.dispose()));
    await this.model.dispose();
    this.onDispose();
  }

  private sessionHooks(): SessionModelHooks {
    return {
      detokenize: (tokens, previous) => this.model.detokenize(tokens as Token[], false, previous as Token[]),
      isStopToken: (token) => this.isStopToken(token),
      generationBias: this.generationBias(),
      ...(this.settings.shiftedReuseMinTokens && this.canShift() ? { shiftedReuseMinTokens: this.settings.shiftedReuseMinTokens } : {}),
    };
  }

  /**
   * Whether llama.cpp can move cached positions of this model: not for recurrent models (no
   * positions to move) nor DeepSeek-V2's attention, as node-llama-cpp's own adaptStateToTokens rules.
   */
  private canShift(): boolean {
    return !this.model.fileInsights.isRecurrent && this.info.architecture !== 'deepseek2';
  }

  /**
   * RepoShapley's decision tokens are read (decide), never written: a completion that sampled
   * one would stop there (it is a CONTROL token). Trained output rows give <NEED> probability
   * where the model is unsure of the code (the vocabulary trigger, docs/control-tokens.md), so
   * generation masks them: the code tokens keep exactly the base model's relative odds.
   */
  private generationBias(): TokenBias | undefined {
    const ids = controlDecisionIds(this.info.special);
    if (ids.length === 0) return undefined;
    const bias = new TokenBias(this.model.tokenizer);
    for (const id of ids) bias.set(id as Token, 'never');
    return bias;
  }

  /** EOS/EOT/end-of-text (llama.cpp's end-of-generation set) or any CONTROL token. */
  private isStopToken(token: number): boolean {
    let stop = this.stopTokens.get(token);
    if (stop === undefined) {
      stop = this.model.isEogToken(token as Token) || this.model.getTokenAttributes(token as Token).control;
      this.stopTokens.set(token, stop);
    }
    return stop;
  }
}
