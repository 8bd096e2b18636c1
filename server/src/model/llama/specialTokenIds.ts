/**
 * Finds special-token ids in a GGUF header: FIM ids from metadata keys, else by looking the
 * known layouts' texts up in the vocabulary; control tokens and chunk delimiters by text.
 *
 * The lookup matches token texts exactly in `tokenizer.ggml.tokens` rather than tokenizing
 * the text with specials on: SentencePiece vocabularies spell CodeLlama's `▁<PRE>` with
 * U+2581, which a tokenize/detokenize round trip turns into a space and would miss.
 */
import { GgufValueType, LlamaTokenType } from '../gguf/ggufTypes.js';
import { kvArray, kvNumber, type GgufHeader } from '../gguf/ggufReader.js';
import { controlDecisionIds, type SpecialTokenIds } from '../completionModel.js';
import {
  CHUNK_CLOSE_TOKENS,
  CHUNK_OPEN_TOKENS,
  DONE,
  DROP,
  END_OF_TEXT,
  FILE_SEPARATOR,
  FIM_LAYOUTS,
  GGUF_FIM_KEYS,
  KEEP,
  NEED,
  REPO_NAME,
  SELECT,
  type FimLayout,
} from '../specialTokens.js';

/** What the header says about special tokens. */
export interface SpecialTokenScan {
  special: SpecialTokenIds;
  hasControlTokens: boolean;
  fimLayout?: string;
  /** Problems worth a warning (e.g. a control token that user text could produce). */
  warnings: string[];
}

/** Scan a GGUF header's tokenizer metadata for the ids a prompt layout needs. */
export function scanSpecialTokens(header: GgufHeader): SpecialTokenScan {
  const tokens = (kvArray(header, 'tokenizer.ggml.tokens') ?? []).map(String);
  const vocabulary = indexVocabulary(tokens);
  const find = (text: string): number | undefined => vocabulary.get(text);
  const fim = findFim(header, tokens, vocabulary);
  const control = findControl(find);
  const special: SpecialTokenIds = {
    ...fim.ids,
    endOfText: findEndOfText(header, find, fim.layout),
    beginOfText: metadataId(header, 'tokenizer.ggml.bos_token_id', tokens.length),
    ...findRepositoryMarkers(header, tokens.length, find),
    ...control.ids,
  };
  return {
    special: dropUndefined(special),
    hasControlTokens: control.complete,
    fimLayout: fim.layout?.name ?? (fim.ids.fimPrefix !== undefined ? 'metadata' : undefined),
    warnings: typeWarnings(header, special, tokens),
  };
}

function indexVocabulary(tokens: string[]): Map<string, number> {
  const index = new Map<string, number>();
  tokens.forEach((text, id) => {
    if (!index.has(text)) index.set(text, id);
  });
  return index;
}

function metadataId(header: GgufHeader, key: string, vocabularySize: number): number | undefined {
  const id = kvNumber(header, key);
  return id !== undefined && Number.isInteger(id) && id >= 0 && id < vocabularySize ? id : undefined;
}

interface FimIds {
  fimPrefix?: number;
  fimSuffix?: number;
  fimMiddle?: number;
}

/** Metadata ids win when all three are present; else the first layout the vocabulary has. */
function findFim(header: GgufHeader, tokens: string[], vocabulary: Map<string, number>): { ids: FimIds; layout?: FimLayout } {
  const fromKeys = (keys: readonly string[]) =>
    keys.map((key) => metadataId(header, key, tokens.length)).find((id) => id !== undefined);
  const prefix = fromKeys(GGUF_FIM_KEYS.prefix);
  const suffix = fromKeys(GGUF_FIM_KEYS.suffix);
  const middle = fromKeys(GGUF_FIM_KEYS.middle);
  if (prefix !== undefined && suffix !== undefined && middle !== undefined) {
    const layout = FIM_LAYOUTS.find((l) => l.prefix.includes(tokens[prefix]) && l.middle.includes(tokens[middle]));
    return { ids: { fimPrefix: prefix, fimSuffix: suffix, fimMiddle: middle }, layout };
  }
  for (const layout of FIM_LAYOUTS) {
    const ids = [layout.prefix, layout.suffix, layout.middle].map((texts) => firstFound(texts, vocabulary));
    if (ids.every((id) => id !== undefined)) {
      return { ids: { fimPrefix: ids[0], fimSuffix: ids[1], fimMiddle: ids[2] }, layout };
    }
  }
  return { ids: {} };
}

function firstFound(texts: readonly string[], vocabulary: Map<string, number>): number | undefined {
  return texts.map((text) => vocabulary.get(text)).find((id) => id !== undefined);
}

/** The layout's own end token first (it ends the middle span), then EOT, then EOS metadata. */
function findEndOfText(header: GgufHeader, find: (text: string) => number | undefined, layout?: FimLayout): number | undefined {
  const size = (kvArray(header, 'tokenizer.ggml.tokens') ?? []).length;
  const fromLayout = (layout?.endOfText ?? [END_OF_TEXT]).map(find).find((id) => id !== undefined);
  return fromLayout
    ?? metadataId(header, 'tokenizer.ggml.eot_token_id', size)
    ?? metadataId(header, 'tokenizer.ggml.eos_token_id', size)
    ?? find(END_OF_TEXT);
}

/** `<|repo_name|>` and `<|file_sep|>`: from metadata where the converter wrote them, else by text. */
function findRepositoryMarkers(
  header: GgufHeader, vocabularySize: number, find: (text: string) => number | undefined,
): Pick<SpecialTokenIds, 'repoName' | 'fileSeparator'> {
  const fromKeys = (keys: readonly string[]) => keys.map((key) => metadataId(header, key, vocabularySize)).find((id) => id !== undefined);
  return {
    repoName: fromKeys(GGUF_FIM_KEYS.repoName) ?? find(REPO_NAME),
    fileSeparator: fromKeys(GGUF_FIM_KEYS.fileSeparator) ?? find(FILE_SEPARATOR),
  };
}

function findControl(find: (text: string) => number | undefined): { ids: SpecialTokenIds; complete: boolean } {
  const chunkOpen = CHUNK_OPEN_TOKENS.map(find);
  const chunkClose = CHUNK_CLOSE_TOKENS.map(find);
  const chunksComplete = [...chunkOpen, ...chunkClose].every((id) => id !== undefined);
  const ids: SpecialTokenIds = {
    need: find(NEED),
    done: find(DONE),
    keep: find(KEEP),
    drop: find(DROP),
    select: find(SELECT),
    // Partial delimiter sets are useless to Pack(), so they are all or nothing.
    chunkOpen: chunksComplete ? (chunkOpen as number[]) : undefined,
    chunkClose: chunksComplete ? (chunkClose as number[]) : undefined,
  };
  const complete = chunksComplete && [ids.need, ids.done, ids.keep, ids.drop, ids.select].every((id) => id !== undefined);
  return { ids, complete };
}

/**
 * A special token of NORMAL type would be produced from user text that happens to contain
 * its spelling, letting file contents inject control decisions; USER_DEFINED likewise.
 */
function typeWarnings(header: GgufHeader, special: SpecialTokenIds, tokens: string[]): string[] {
  const entry = header.kv.get('tokenizer.ggml.token_type');
  if (!entry || entry.type !== GgufValueType.ARRAY) return [];
  const types = entry.value.map(Number);
  const ids = [special.fimPrefix, special.fimSuffix, special.fimMiddle, special.repoName, special.fileSeparator, ...controlDecisionIds(special)];
  return ids
    .filter((id): id is number => id !== undefined && types[id] !== LlamaTokenType.CONTROL)
    .map((id) => `special token ${JSON.stringify(tokens[id])} (id ${id}) has token type ${types[id]}` +
      (types[id] === LlamaTokenType.USER_DEFINED ? ' (USER_DEFINED)' : '') +
      ', not CONTROL: user text containing it will tokenize into it');
}

function dropUndefined(ids: SpecialTokenIds): SpecialTokenIds {
  return Object.fromEntries(Object.entries(ids).filter(([, v]) => v !== undefined)) as SpecialTokenIds;
}
