/**
 * A prompt is a list of segments: special tokens by role, and text. Everything that serializes
 * the paper's sequences (server, labeler, training-data builder, bench) builds segments here,
 * then turns them into token ids with {@link toTokenIds} or into readable text with {@link renderSegments}.
 */
import type { SpecialTokenIds } from '../model/completionModel.js';

/** Roles of special tokens (RepoShapley §3.4; PFX/SFX/MID are the model's FIM tokens). */
export type SpecialRole =
  | 'PFX' | 'SFX' | 'MID' | 'EOT' | 'NEED' | 'DONE' | 'KEEP' | 'DROP' | 'SELECT'
  /** Repository-format markers (Qwen2.5-Coder's `<|repo_name|>`, `<|file_sep|>`). */
  | 'REPO' | 'FILE_SEP'
  | `C_${number}` | `/C_${number}`;

export type Segment =
  | { kind: 'special'; role: SpecialRole }
  /** Pre-tokenized text: `ids` are the tokens of `text` under the model's tokenizer. */
  | { kind: 'text'; text: string; ids: number[] };

export const special = (role: SpecialRole): Segment => ({ kind: 'special', role });

/** Thrown when a layout needs a special token the model lacks: a bug in layout selection. */
export class MissingSpecialTokenError extends Error {}

/** The id of a special role in a model's vocabulary, or undefined. */
export function specialId(role: SpecialRole, ids: SpecialTokenIds): number | undefined {
  const chunk = /^(\/?)C_(\d+)$/.exec(role);
  if (chunk) {
    const list = chunk[1] ? ids.chunkClose : ids.chunkOpen;
    return list?.[Number(chunk[2]) - 1];
  }
  const byRole: Record<string, number | undefined> = {
    PFX: ids.fimPrefix, SFX: ids.fimSuffix, MID: ids.fimMiddle, EOT: ids.endOfText,
    NEED: ids.need, DONE: ids.done, KEEP: ids.keep, DROP: ids.drop, SELECT: ids.select,
    REPO: ids.repoName, FILE_SEP: ids.fileSeparator,
  };
  return byRole[role];
}

/** Token ids of a segment list. */
export function toTokenIds(segments: readonly Segment[], ids: SpecialTokenIds): number[] {
  const out: number[] = [];
  for (const segment of segments) {
    if (segment.kind === 'text') {
      for (const id of segment.ids) out.push(id);
      continue;
    }
    const id = specialId(segment.role, ids);
    if (id === undefined) throw new MissingSpecialTokenError(`model has no token for <${segment.role}>`);
    out.push(id);
  }
  return out;
}

/**
 * Human-readable form (`<PFX>def f(...`), used by golden tests, traces and debugging.
 * `tokenText` spells special tokens as a given model's vocabulary does (default: `<ROLE>`).
 */
export function renderSegments(
  segments: readonly Segment[], tokenText: (role: SpecialRole) => string = (role) => `<${role}>`,
): string {
  return segments.map((s) => (s.kind === 'special' ? tokenText(s.role) : s.text)).join('');
}

/** Number of tokens the segments occupy. */
export function countTokens(segments: readonly Segment[]): number {
  return segments.reduce((sum, s) => sum + (s.kind === 'text' ? s.ids.length : 1), 0);
}
