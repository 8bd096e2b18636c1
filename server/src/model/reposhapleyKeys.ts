/**
 * The GGUF metadata keys our export writes (models/export/exportGguf.ts) and the server reads
 * (model/llama/loadLlamaModel.ts): one definition for both sides.
 */

/** False for a base model that has the control tokens but never learned them (`auto` must not pick reposhapley). */
export const CONTROL_TRAINED_KEY = 'reposhapley.control_tokens_trained';
/** The t_c tuned on validation packages after distillation; the server's default when the user sets none. */
export const NEED_THRESHOLD_KEY = 'reposhapley.need_threshold';
/** Prefix lines the model was trained to see repeated after <MID> (prompt/sequences.ts cursor echo). */
export const ECHO_LINES_KEY = 'reposhapley.echo_lines';
/** Most echo lines a GGUF may declare; a larger or malformed value is written by no export and read as 0. */
export const MAX_ECHO_LINES = 8;

/** Whether `value` is an echo-line count a GGUF may declare: a whole number in [0, MAX_ECHO_LINES]. */
export function isEchoLineCount(value: number): boolean {
  return Number.isInteger(value) && value >= 0 && value <= MAX_ECHO_LINES;
}

/**
 * The generation layout a derived pretrained model keeps (`repo-fim` or `repo-fim-line` for
 * Qwen2.5-Coder): its control tokens decide, its own format generates. Absent: the RepoShapley
 * sequences (the small model).
 */
export const LAYOUT_KEY = 'reposhapley.layout';

/** The repository layouts a derived model may declare (prompt/layouts.ts). */
export type DeclaredLayout = 'repo-fim' | 'repo-fim-line';

/** `value` as a declared layout; undefined for anything else (an older or foreign GGUF). */
export function declaredLayoutOf(value: unknown): DeclaredLayout | undefined {
  return value === 'repo-fim' || value === 'repo-fim-line' ? value : undefined;
}
/**
 * How the trigger's P(NEED) is read: `pair` (absent: the paper's Softmax over {NEED, DONE}) or
 * `vocabulary` (P(<NEED>) over the whole vocabulary, where <NEED> competes with the code the model
 * would write; a derived pretrained model whose rows alone were trained, docs/control-tokens.md).
 */
export const TRIGGER_SOFTMAX_KEY = 'reposhapley.trigger_softmax';

/** The ways a model may read its trigger. */
export type TriggerSoftmax = 'pair' | 'vocabulary';

/** `value` as a trigger softmax; `pair` for anything else (older GGUFs and the small model). */
export function triggerSoftmaxOf(value: unknown): TriggerSoftmax {
  return value === 'vocabulary' ? 'vocabulary' : 'pair';
}

/** The SHA-256 of the control pack's rows a derived GGUF was made from (provenance). */
export const CONTROL_PACK_KEY = 'reposhapley.control_pack';
