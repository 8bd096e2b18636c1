/**
 * Settings shared by the server, the VS Code client and the bench, and their one schema
 * ({@link SETTINGS_SCHEMA}): each setting's type, default, range or choices and description.
 * The server's merge, its reader of untrusted settings and the VS Code client's reader all
 * validate with {@link isValidSetting}; client-vscode/package.json and the README's Settings
 * table repeat the schema, and a test holds package.json to it.
 *
 * Editors send settings in `initializationOptions` and `workspace/didChangeConfiguration`
 * (under the `reposhapley` section). Every field is optional on the wire; the server fills gaps
 * from {@link DEFAULT_SETTINGS}, and an invalid value is ignored (the previous value is kept).
 */
import { EDITOR_LANGUAGES, type LanguageId } from './languages.js';

/** Context-control policy (RepoShapley §4.1 baselines plus the learned policy). */
export type PolicyName = 'none' | 'full' | 'reposhapley' | 'auto';

/** All policies a user may pick, in the order the docs list them. */
export const POLICY_NAMES: readonly PolicyName[] = ['none', 'full', 'reposhapley', 'auto'];

/**
 * The prompt layout: `auto` = what a derived model declares (its control pack's layout), else its
 * repository format (`repo-fim`) when its vocabulary has one (Qwen2.5-Coder), else `plain-fim`
 * (chunks as comments). On a derived model `repo-fim`, `repo-fim-line` and `repo-fim-pack-last`
 * pick a repository layout (for paired benches); the small model with the control tokens always gets the RepoShapley format.
 */
export type LayoutPreference = 'auto' | 'repo-fim' | 'repo-fim-line' | 'repo-fim-pack-last' | 'plain-fim';

/** All layout preferences, in the order the docs list them. */
export const LAYOUT_PREFERENCES: readonly LayoutPreference[] = ['auto', 'repo-fim', 'repo-fim-line', 'repo-fim-pack-last', 'plain-fim'];

/** Token budgets for the three parts of a prompt, in model tokens. */
export interface PromptBudgets {
  /** Tokens kept from the prefix (left-truncated by whole lines). */
  prefixTokens: number;
  /** Tokens kept from the suffix (right-truncated by whole lines). */
  suffixTokens: number;
  /** Tokens for all packed cross-file chunks together. */
  chunkTokens: number;
}

/** Settings that shape one completion; ranges and meanings are in {@link SETTINGS_SCHEMA}. */
export interface CompletionSettings {
  /** Path to a GGUF model; empty means the server finds one (see {@link CompletionSettings.model}). */
  modelPath: string;
  /** A catalog model name (`reposhapley model list`) or `auto`, used when `modelPath` is empty. */
  model: string;
  /** Where catalog models are stored; empty means the environment's cache directory. */
  modelCacheDir: string;
  /**
   * URL of a running llama.cpp `llama-server` (`http://host:8080`) that evaluates the model; empty
   * means the model runs in this process's model host. Indexing, retrieval and prompts stay local.
   */
  modelServer: string;
  /** Sent as `Authorization: Bearer …` to the model server (its `--api-key`); empty sends none. */
  modelServerApiKey: string;
  /** Longest wait for one model-server request, in milliseconds; then the completion is empty. */
  modelServerTimeoutMs: number;
  /** A llama.cpp LoRA adapter GGUF applied to the model asked for (not to a fallback); empty: none. */
  adapterPath: string;
  policy: PolicyName;
  /** Which FIM layout a model without control tokens gets (prompt/layouts.ts). */
  layout: LayoutPreference;
  /** Number of retrieved candidates K (RepoShapley default 10). */
  topK: number;
  budgets: PromptBudgets;
  /**
   * Threshold t_c on P(<NEED>) in the two-token softmax (Algorithm 1); null uses the model's
   * recorded t_c (tuned on validation packages), else {@link FALLBACK_NEED_THRESHOLD}.
   */
  needThreshold: number | null;
  /** CPU threads for the model; 0 means half the machine's cores, but two where there are two; never more than the cores. */
  threads: number;
  /** Use fewer than `threads` while other processes keep the cores busy (a build, another window's model). */
  adaptiveThreads: boolean;
  /** Layers offloaded to a GPU: 'auto' lets llama.cpp decide, a number pins it, 0 is CPU only. */
  gpuLayers: 'auto' | number;
  /** One model process for every window of this user that loads the same model (server/src/model/childProcess/). */
  sharedModelHost: boolean;
  /** Seconds a shared model process with no window connected stays loaded before it exits. */
  modelHostIdleSeconds: number;
  /** Milliseconds to wait after the last keystroke before starting a completion. */
  debounceMs: number;
  /**
   * Evaluate the prompt at a cursor that came to rest (`reposhapley/cursor` from the editor) in
   * the background, so the first keystroke there finds it cached; off saves the CPU it costs.
   */
  backgroundPrefill: boolean;
  /**
   * The completion that waited for the model to load answers from a short prompt
   * ({@link QUICK_FIRST_BUDGETS}), and the full prompt is read in the background after it, so the
   * first ghost text after a start comes seconds sooner; off: the full prompt from the start.
   */
  quickFirstAnswer: boolean;
  /**
   * Keep the cross-file candidates retrieved where the cursor came onto a line while the user
   * types on from there, so the prompt before the cursor line stays cached; off retrieves anew
   * at every keystroke.
   */
  keepCandidatesWhileTyping: boolean;
  /**
   * When the cursor moves to a line at most this many lines from the last one in the same
   * document, use the candidates retrieved there instead of retrieving anew, so the prompt's
   * chunks, and with them its cache, stay the same across a short jump; 0 retrieves anew.
   */
  keepCandidatesNearLines: number;
  /**
   * Keep cached prompt pieces that moved (a prefix window that slid by a line, a jump to a nearby
   * function, a chunk both prompts carry), shifting them in llama.cpp's KV cache as
   * llama-server's `--cache-reuse` does; off re-reads everything after the first changed token.
   */
  kvShiftReuse: boolean;
  /** Maximum tokens generated for one completion. */
  maxTokens: number;
  /** Sliding-window height w and stride s used for retrieval windows (RepoShapley A.4). */
  windowLines: number;
  windowStride: number;
  /** The workspace bound: index at most this many files… */
  indexMaxFiles: number;
  /** …and at most this many megabytes of source. */
  indexMaxMegabytes: number;
  /** Whether completions are offered at all. */
  enabled: boolean;
  /** Put the rendered generation prompt into completion traces (for debugging and the bench). */
  tracePrompt: boolean;
  /** Which languages are completed (`languages.go: false` turns Go off; its files are still indexed). */
  languages: LanguageSwitches;
}

/** One switch per language the server knows (shared/languages.ts). */
export type LanguageSwitches = Record<LanguageId, boolean>;

/** A partial settings object as editors send it. */
export type SettingsPatch = Partial<Omit<CompletionSettings, 'budgets' | 'languages'>> & {
  budgets?: Partial<PromptBudgets>;
  languages?: Partial<LanguageSwitches>;
};

/** A setting's name: a field of {@link CompletionSettings}, nested ones dotted (`budgets.prefixTokens`), as editors and the README name them. */
export type SettingKey = Exclude<keyof CompletionSettings, 'budgets' | 'languages'> | `budgets.${keyof PromptBudgets}` | `languages.${LanguageId}`;

/** The value type of one setting. */
export type SettingValue<K extends SettingKey> =
  K extends `budgets.${infer B extends keyof PromptBudgets}` ? PromptBudgets[B]
    : K extends `languages.${LanguageId}` ? boolean
      : K extends keyof CompletionSettings ? CompletionSettings[K] : never;

/** What every schema entry has. */
interface SpecBase<V> {
  /** The value when nobody sets one. */
  default: V;
  /** One line: what the setting does (package.json and the README may say it in their own words). */
  description: string;
}

/** A true/false setting. */
export interface BooleanSpec extends SpecBase<boolean> {
  type: 'boolean';
}

/** A string setting; `enum` lists the only values allowed (required when the type is a union of literals). */
export type StringSpec<S extends string = string> = SpecBase<S> & { type: 'string' } & (string extends S
  ? { enum?: undefined }
  : { enum: readonly S[] });

/**
 * A numeric setting within [min, max] (inclusive; `integer` also rejects fractions). `nullable`
 * admits null and `auto` admits the string 'auto', each exactly when the value type has it.
 */
export type NumberSpec<V extends number | null | 'auto' = number | null | 'auto'> = SpecBase<V> & {
  type: 'integer' | 'number';
  min: number;
  max: number;
} & (null extends V ? { nullable: true } : { nullable?: undefined })
  & ('auto' extends V ? { auto: true } : { auto?: undefined });

/** The schema entry a value type needs: the compiler keeps each entry's shape and default in step with {@link CompletionSettings}. */
export type SettingSpec<V> = [V] extends [boolean] ? BooleanSpec
  : [V] extends [string] ? StringSpec<V>
    : [V] extends [number | null | 'auto'] ? NumberSpec<V> : never;

/** Any schema entry, for code that walks the schema. */
export type AnySettingSpec = BooleanSpec | (SpecBase<string> & { type: 'string'; enum?: readonly string[] })
  | (SpecBase<number | null | 'auto'> & { type: 'integer' | 'number'; min: number; max: number; nullable?: boolean; auto?: boolean });

/** The schema's type: exactly one entry per setting. */
export type SettingsSchema = { readonly [K in SettingKey]: SettingSpec<SettingValue<K>> };

/** t_c for a model that records none. */
export const FALLBACK_NEED_THRESHOLD = 0.5;

/**
 * The budgets of a quick first answer (`quickFirstAnswer`): about 360 prompt tokens against the
 * defaults' 832, so the first completion after the model loads reads a prompt in ~1.2 s instead
 * of ~3.5 s on two cores (docs/benchmarks.md, "Cold start").
 */
export const QUICK_FIRST_BUDGETS: PromptBudgets = { prefixTokens: 192, suffixTokens: 32, chunkTokens: 128 };

/** Largest prompt budget: budgets are shrunk to the model's context anyway; this one admits 32K-context models. */
const MAX_BUDGET_TOKENS = 32_768;

/**
 * The one schema, in the order the docs list settings. Defaults: paper values where the paper
 * gives one (K = 10), else measured on this machine. Ranges say what the server can use:
 * a prefix under 16 tokens holds less than the cursor line, so there is nothing to complete
 * from; suffix and chunks may be 0 (no suffix, no cross-file context).
 */
export const SETTINGS_SCHEMA: SettingsSchema = {
  enabled: { type: 'boolean', default: true, description: 'Offer completions at all.' },
  modelPath: {
    type: 'string', default: '',
    description: 'GGUF model file; empty: `REPOSHAPLEY_MODEL`, then the catalog model `model` once pulled, else the bundled small model.',
  },
  model: {
    type: 'string', default: 'auto',
    description: 'Catalog model used when `modelPath` is empty: `auto` (the largest this machine runs within 1 s per keystroke and 5 s to start, judged from its measured speed: `reposhapley model speed`) or a name from `reposhapley model list`.',
  },
  modelCacheDir: {
    type: 'string', default: '',
    description: 'Where catalog models are kept; empty: `$REPOSHAPLEY_CACHE_DIR`, then `$XDG_CACHE_HOME/reposhapley/models`, then `~/.cache/reposhapley/models`.',
  },
  modelServer: {
    type: 'string', default: '',
    description: 'URL of a shared llama.cpp `llama-server` (e.g. `http://gpu-box:8080`) that runs the model; empty: the model runs on this machine.',
  },
  modelServerApiKey: {
    type: 'string', default: '',
    description: 'API key for `modelServer` (llama-server `--api-key`), sent as a bearer token; empty: `$REPOSHAPLEY_MODEL_SERVER_API_KEY`, else none.',
  },
  // A GPU server answers in well under a second; a CPU one reading a 4K-token prompt takes tens.
  modelServerTimeoutMs: {
    type: 'integer', default: 30_000, min: 100, max: 600_000,
    description: 'Milliseconds one request to `modelServer` may take before it is abandoned and the completion comes back empty.',
  },
  adapterPath: {
    type: 'string', default: '',
    description: 'LoRA adapter GGUF (llama.cpp `--lora`) applied to the model asked for, such as the control fine-tune\'s (`models/train/lora_gguf.py`); not to the bundled fallback or a `modelServer`. Empty: none.',
  },
  policy: {
    type: 'string', default: 'auto', enum: POLICY_NAMES,
    description: 'How cross-file context reaches the model: `none` (the file alone), `full` (the top-K candidates within the chunk budget), `reposhapley` (the model decides NEED/DONE and KEEP/DROP with its control tokens), `auto` (`reposhapley` where the model\'s control pack is marked trained, else `full`).',
  },
  layout: {
    type: 'string', default: 'auto', enum: LAYOUT_PREFERENCES,
    description: 'Prompt layout: `repo-fim` (the model\'s repository format), `repo-fim-line` and `repo-fim-pack-last` (variants kept for paired benches: both cost quality or keystroke latency, docs/benchmarks.md), `plain-fim` (chunks as comments; not for control-pack models), `auto` (what the model declares, else `repo-fim` where its vocabulary has it).',
  },
  'budgets.prefixTokens': {
    type: 'integer', default: 384, min: 16, max: MAX_BUDGET_TOKENS,
    description: 'Model tokens of the current file before the cursor (cut from the left, whole lines).',
  },
  'budgets.suffixTokens': {
    type: 'integer', default: 64, min: 0, max: MAX_BUDGET_TOKENS,
    description: 'Model tokens of the current file after the cursor (cut from the right, whole lines).',
  },
  'budgets.chunkTokens': {
    type: 'integer', default: 384, min: 0, max: MAX_BUDGET_TOKENS,
    description: 'Model tokens for all cross-file chunks together.',
  },
  debounceMs: {
    type: 'integer', default: 75, min: 0, max: 5_000,
    description: 'Milliseconds to wait after the last keystroke before completing (as-you-type only).',
  },
  backgroundPrefill: {
    type: 'boolean', default: true,
    description: 'When the cursor comes to rest, evaluate the prompt there in the background, so the first keystroke finds it cached (costs CPU while idle).',
  },
  quickFirstAnswer: {
    type: 'boolean', default: true,
    description: 'The first completion after the model loads answers from a short prompt (fewer lines of the file, fewer cross-file chunks) and the full prompt is read in the background for the next one: the first ghost text after a start comes seconds sooner.',
  },
  keepCandidatesWhileTyping: {
    type: 'boolean', default: true,
    description: 'While you type on a line, keep the cross-file candidates retrieved where the cursor came onto it, so the prompt stays cached (off: retrieve anew at every keystroke).',
  },
  // About the span of the 384-token prefix window: measured on the jump bench (docs/benchmarks.md).
  keepCandidatesNearLines: {
    type: 'integer', default: 30, min: 0, max: 1_000,
    description: 'When the cursor moves at most this many lines in the same file, keep the cross-file candidates retrieved where it was, so the prompt stays cached across a short jump (0: retrieve anew).',
  },
  kvShiftReuse: {
    type: 'boolean', default: true,
    description: 'Reuse cached prompt pieces that moved (the prefix window slid, a nearby jump, a chunk both prompts carry) by shifting them in the model\'s cache, as llama-server\'s --cache-reuse does (off: re-read everything after the first change).',
  },
  maxTokens: { type: 'integer', default: 64, min: 1, max: 1_024, description: 'Most tokens generated for one completion.' },
  // The control vocabulary has <C_1>..<C_10> (RepoShapley K = 10).
  topK: { type: 'integer', default: 10, min: 0, max: 10, description: 'Retrieved cross-file candidates (K, at most 10).' },
  needThreshold: {
    type: 'number', default: null, min: 0, max: 1, nullable: true,
    description: 't_c: retrieve when P(<NEED>) is at least this; null: the t_c the model records, else 0.5.',
  },
  // Values above the core count are clamped to it; the maximum only rejects nonsense.
  threads: {
    type: 'integer', default: 0, min: 0, max: 1_024,
    description: 'CPU threads for the model; 0: half the cores, but two where there are two. More than the cores is clamped to them, with a warning in the log.',
  },
  // llama.cpp's threads spin waiting for each other, so a thread without a core stalls the rest
  // (server/src/model/llama/threadGovernor.ts).
  adaptiveThreads: {
    type: 'boolean', default: true,
    description: 'Use fewer threads than `threads` while other processes keep the cores busy (a build, a test run, another window\'s model): llama.cpp\'s threads wait for each other, so one without a core stalls the rest.',
  },
  // More layers than the model has offloads them all; four digits are plenty.
  gpuLayers: {
    type: 'integer', default: 'auto', min: 0, max: 9_999, auto: true,
    description: 'Model layers offloaded to a GPU: auto, a number, or 0 for CPU only.',
  },
  // Each window's own model would hold its own weights and fight the others for the cores.
  sharedModelHost: {
    type: 'boolean', default: true,
    description: 'One model process for every editor window of this user that loads the same model: its memory counted once, one completion evaluated at a time, each window its own prompt cache. Off: a process per window.',
  },
  modelHostIdleSeconds: {
    type: 'integer', default: 300, min: 0, max: 86_400,
    description: 'Seconds the shared model process stays loaded after the last window closed, so the next window starts warm.',
  },
  windowLines: { type: 'integer', default: 20, min: 1, max: 200, description: 'Retrieval window height w in lines (RepoShapley A.4).' },
  windowStride: { type: 'integer', default: 10, min: 1, max: 200, description: 'Retrieval window stride s in lines (RepoShapley A.4).' },
  // Defaults that fit a laptop: a big monorepo's Python, not a whole disk (a root at / gave 17,391 files and 2.1 GB).
  indexMaxFiles: {
    type: 'integer', default: 10_000, min: 1, max: 1_000_000,
    description: 'Most source files indexed (every language together); the rest of a larger workspace is left out, and the status says so.',
  },
  indexMaxMegabytes: {
    type: 'integer', default: 200, min: 1, max: 100_000,
    description: 'Most megabytes of source indexed (every language together); the rest of a larger workspace is left out, and the status says so.',
  },
  tracePrompt: {
    type: 'boolean', default: false,
    description: 'Put the rendered generation prompt into completion traces (debugging, the bench).',
  },
  ...languageSwitchSpecs(),
};

/** `languages.<id>`: every language on by default. */
function languageSwitchSpecs(): { readonly [K in `languages.${LanguageId}`]: BooleanSpec } {
  const entries = EDITOR_LANGUAGES.map((language) => [`languages.${language.id}`, {
    type: 'boolean', default: true, description: `Complete ${language.name} files (${language.extensions.join(', ')}); off leaves them indexed for the others.`,
  }]);
  return Object.fromEntries(entries) as { readonly [K in `languages.${LanguageId}`]: BooleanSpec };
}

/** Every setting, in schema order. */
export const SETTING_KEYS = Object.keys(SETTINGS_SCHEMA) as SettingKey[];

/** The schema entry of `key`, widened for code that walks the schema. */
export function settingSpec(key: SettingKey): AnySettingSpec {
  return SETTINGS_SCHEMA[key] as AnySettingSpec;
}

/** Whether `value` is allowed for `key`: right type, within range, one of the choices. */
export function isValidSetting<K extends SettingKey>(key: K, value: unknown): value is SettingValue<K> {
  const spec = settingSpec(key);
  switch (spec.type) {
    case 'boolean': return typeof value === 'boolean';
    case 'string': return typeof value === 'string' && (spec.enum === undefined || spec.enum.includes(value));
    default: return isValidNumber(spec, value);
  }
}

function isValidNumber(spec: Extract<AnySettingSpec, { min: number }>, value: unknown): boolean {
  if (value === null) return spec.nullable === true;
  if (value === 'auto') return spec.auto === true;
  return typeof value === 'number' && Number.isFinite(value) && (spec.type === 'number' || Number.isInteger(value))
    && value >= spec.min && value <= spec.max;
}

/** The value at a dotted key of a settings-shaped object; undefined when any part is missing. */
export function readSetting(source: unknown, key: SettingKey): unknown {
  let value: unknown = source;
  for (const part of key.split('.')) {
    if (!isRecord(value)) return undefined;
    value = value[part];
  }
  return value;
}

/**
 * The valid settings among what `read` returns for each key, as a patch: values that are
 * missing, of the wrong type or out of range are left out (so the previous value stays).
 */
export function pickValidSettings(read: (key: SettingKey) => unknown): SettingsPatch {
  const patch: Record<string, unknown> = {};
  for (const key of SETTING_KEYS) {
    const value = read(key);
    if (value !== undefined && isValidSetting(key, value)) writeSetting(patch, key, value);
  }
  return patch as SettingsPatch;
}

function writeSetting(target: Record<string, unknown>, key: SettingKey, value: unknown): void {
  const parts = key.split('.');
  let record = target;
  for (const part of parts.slice(0, -1)) {
    if (!isRecord(record[part])) record[part] = {};
    record = record[part] as Record<string, unknown>;
  }
  record[parts[parts.length - 1]] = value;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function schemaDefaults(): CompletionSettings {
  const settings: Record<string, unknown> = {};
  for (const key of SETTING_KEYS) writeSetting(settings, key, SETTINGS_SCHEMA[key].default);
  return settings as unknown as CompletionSettings;
}

/** The schema's defaults as a settings object. */
export const DEFAULT_SETTINGS: CompletionSettings = schemaDefaults();
