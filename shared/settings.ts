/**
 * Settings shared by the server, the VS Code client and the bench.
 * Sent by editors in `initializationOptions` and `workspace/didChangeConfiguration`
 * (under the `reposhapley` section). Every field is optional on the wire; the server
 * fills gaps from {@link DEFAULT_SETTINGS}.
 */

/** Context-control policy (RepoShapley §4.1 baselines plus the learned policy). */
export type PolicyName = 'none' | 'full' | 'reposhapley' | 'auto';

/** All policies a user may pick, in the order the docs list them. */
export const POLICY_NAMES: readonly PolicyName[] = ['none', 'full', 'reposhapley', 'auto'];

/** Token budgets for the three parts of a prompt, in model tokens. */
export interface PromptBudgets {
  /** Tokens kept from the prefix (left-truncated by whole lines). */
  prefixTokens: number;
  /** Tokens kept from the suffix (right-truncated by whole lines). */
  suffixTokens: number;
  /** Tokens for all packed cross-file chunks together. */
  chunkTokens: number;
}

/** Settings that shape one completion. */
export interface CompletionSettings {
  /** Path to a GGUF model; empty means the bundled default model. */
  modelPath: string;
  policy: PolicyName;
  /** Number of retrieved candidates K (RepoShapley default 10). */
  topK: number;
  budgets: PromptBudgets;
  /**
   * Threshold t_c on P(<NEED>) in the two-token softmax (Algorithm 1); null uses the model's
   * recorded t_c (tuned on validation packages), else {@link FALLBACK_NEED_THRESHOLD}.
   */
  needThreshold: number | null;
  /** CPU threads for the model; 0 means half the machine's cores, at least one; never more than the cores. */
  threads: number;
  /** Layers offloaded to a GPU: 'auto' lets llama.cpp decide, a number pins it, 0 is CPU only. */
  gpuLayers: 'auto' | number;
  /** Milliseconds to wait after the last keystroke before starting a completion. */
  debounceMs: number;
  /** Maximum tokens generated for one completion. */
  maxTokens: number;
  /** Sliding-window height w and stride s used for retrieval windows (RepoShapley A.4). */
  windowLines: number;
  windowStride: number;
  /** Whether completions are offered at all. */
  enabled: boolean;
  /** Put the rendered generation prompt into completion traces (for debugging and the bench). */
  tracePrompt: boolean;
}

/** t_c for a model that records none. */
export const FALLBACK_NEED_THRESHOLD = 0.5;

/** Defaults: paper values where the paper gives one (K = 10), else measured on this machine. */
export const DEFAULT_SETTINGS: CompletionSettings = {
  modelPath: '',
  policy: 'auto',
  topK: 10,
  budgets: { prefixTokens: 1024, suffixTokens: 256, chunkTokens: 1024 },
  needThreshold: null,
  threads: 0,
  gpuLayers: 'auto',
  debounceMs: 75,
  maxTokens: 64,
  windowLines: 20,
  windowStride: 10,
  enabled: true,
  tracePrompt: false,
};

/** A partial settings object as editors send it. */
export type SettingsPatch = Partial<Omit<CompletionSettings, 'budgets'>> & {
  budgets?: Partial<PromptBudgets>;
};
