/**
 * The canonical texts of the special tokens. The model runtime, the prompt module and the
 * tokenizer trainer all take them from here, so a token is spelled in exactly one place.
 */

/** Most retrieved candidates one prompt can pack: `<C_1>`..`<C_10>` (RepoShapley K ≤ 10). */
export const MAX_CHUNKS = 10;

/** FIM texts of RepoShapley models; the same texts as Qwen2.5-Coder. */
export const FIM_PREFIX = '<|fim_prefix|>';
export const FIM_SUFFIX = '<|fim_suffix|>';
export const FIM_MIDDLE = '<|fim_middle|>';
/** Ends a document, and the middle span in FIM mode. */
export const END_OF_TEXT = '<|endoftext|>';

/**
 * Repository-level markers of Qwen2.5-Coder's pretraining format
 * (`<|repo_name|>NAME\n<|file_sep|>PATH\nCONTENT…`); prompt/layouts.ts `repo-fim` writes them.
 */
export const REPO_NAME = '<|repo_name|>';
export const FILE_SEPARATOR = '<|file_sep|>';

/** Retrieval-control tokens T_R and candidate-selection tokens T_S (RepoShapley §3.4). */
export const NEED = '<NEED>';
export const DONE = '<DONE>';
export const KEEP = '<KEEP>';
export const DROP = '<DROP>';
/** Marks the start of the K keep/drop decisions in Format-1 (§3.4). */
export const SELECT = '<SELECT>';

/** The five control tokens in a fixed order. */
export const CONTROL_TOKENS: readonly string[] = [NEED, DONE, KEEP, DROP, SELECT];

/** `<C_i>`, the opening delimiter of the i-th packed candidate (1-based, §3.4 Pack). */
export function chunkOpenToken(index: number): string {
  assertChunkIndex(index);
  return `<C_${index}>`;
}

/** `</C_i>`, the closing delimiter of the i-th packed candidate (1-based). */
export function chunkCloseToken(index: number): string {
  assertChunkIndex(index);
  return `</C_${index}>`;
}

function assertChunkIndex(index: number): void {
  if (!Number.isInteger(index) || index < 1 || index > MAX_CHUNKS) {
    throw new RangeError(`chunk index must be an integer in 1..${MAX_CHUNKS}, got ${index}`);
  }
}

const CHUNK_INDICES = Array.from({ length: MAX_CHUNKS }, (_, i) => i + 1);

/** `<C_1>`..`<C_10>`; element 0 is C_1. */
export const CHUNK_OPEN_TOKENS: readonly string[] = CHUNK_INDICES.map(chunkOpenToken);
/** `</C_1>`..`</C_10>`; element 0 is /C_1. */
export const CHUNK_CLOSE_TOKENS: readonly string[] = CHUNK_INDICES.map(chunkCloseToken);

/**
 * Every special token a RepoShapley vocabulary adds, in the order the tokenizer trainer
 * appends them: end of text, FIM, control, then chunk delimiters (open and close interleaved).
 * All of them should be CONTROL-type tokens so user text never tokenizes into them.
 */
export const REPOSHAPLEY_SPECIAL_TOKENS: readonly string[] = [
  END_OF_TEXT,
  FIM_PREFIX,
  FIM_SUFFIX,
  FIM_MIDDLE,
  ...CONTROL_TOKENS,
  ...CHUNK_INDICES.flatMap((i) => [chunkOpenToken(i), chunkCloseToken(i)]),
];

/**
 * How a model family spells its FIM tokens. Each role lists accepted spellings, first
 * preferred; a layout matches a vocabulary when each role has one spelling in it.
 */
export interface FimLayout {
  name: string;
  prefix: readonly string[];
  suffix: readonly string[];
  middle: readonly string[];
  /** Tokens that end the middle span, when the family has its own. */
  endOfText: readonly string[];
  /**
   * Order of the prompt parts. All known layouts are PSM: prefix, suffix, middle
   * (`<P> prefix <S> suffix <M>`); SPM would put the suffix part first.
   */
  order: 'psm' | 'spm';
}

/**
 * Known FIM layouts, tried in this order when GGUF metadata lacks FIM ids.
 * To add one, append an entry; nothing else changes (see model/README.md).
 */
export const FIM_LAYOUTS: readonly FimLayout[] = [
  {
    // Also Qwen2.5-Coder, which uses the same texts.
    name: 'reposhapley',
    prefix: [FIM_PREFIX],
    suffix: [FIM_SUFFIX],
    middle: [FIM_MIDDLE],
    endOfText: [END_OF_TEXT],
    order: 'psm',
  },
  {
    name: 'starcoder',
    prefix: ['<fim_prefix>'],
    suffix: ['<fim_suffix>'],
    middle: ['<fim_middle>'],
    endOfText: [END_OF_TEXT],
    order: 'psm',
  },
  {
    // SentencePiece spells the leading space as U+2581; some conversions drop it.
    name: 'codellama',
    prefix: ['▁<PRE>', '<PRE>'],
    suffix: ['▁<SUF>', '<SUF>'],
    middle: ['▁<MID>', '<MID>'],
    endOfText: ['▁<EOT>', '<EOT>'],
    order: 'psm',
  },
  {
    // The names mislead: "begin" precedes the prefix, "hole" the suffix, "end" the middle.
    // Fullwidth bars U+FF5C and U+2581 are part of the token texts.
    name: 'deepseek-coder',
    prefix: ['<｜fim▁begin｜>'],
    suffix: ['<｜fim▁hole｜>'],
    middle: ['<｜fim▁end｜>'],
    endOfText: ['<｜end▁of▁sentence｜>'],
    order: 'psm',
  },
];

/** GGUF metadata keys for FIM ids: current names first, then the older ones llama.cpp still reads. */
export const GGUF_FIM_KEYS = {
  prefix: ['tokenizer.ggml.fim_pre_token_id', 'tokenizer.ggml.prefix_token_id'],
  suffix: ['tokenizer.ggml.fim_suf_token_id', 'tokenizer.ggml.suffix_token_id'],
  middle: ['tokenizer.ggml.fim_mid_token_id', 'tokenizer.ggml.middle_token_id'],
  repoName: ['tokenizer.ggml.fim_rep_token_id'],
  fileSeparator: ['tokenizer.ggml.fim_sep_token_id'],
} as const;
