/**
 * The CompletionModel adapter over a running llama.cpp `llama-server` (a team's shared GPU box):
 * indexing, retrieval, the policy and prompt building stay in this process; only tokenization and
 * forward passes go over HTTP.
 *
 * What the server cannot tell over HTTP is read elsewhere:
 * - special-token ids: each known text is tokenized with and without special parsing (a control
 *   token is one id with, plain text without);
 * - whether its control tokens are trained, t_c and the layout (GGUF keys llama-server does not
 *   expose): from the control pack whose derived file has the name the server reports.
 *
 * Tokenization is asynchronous here, so `tokenize()` answers only for text tokenized before
 * through {@link RemoteCompletionModel.tokenizeMany} (prompt/lineTokenizer.ts prepares every
 * prompt that way) and throws {@link UntokenizedTextError} otherwise.
 */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { controlDecisionIds, type CompletionModel, type LoadModelResult, type ModelInfo, type ModelSession, type SpecialTokenIds } from '../completionModel.js';
import { controlPackManifest, controlPacksDir, type ControlPack } from '../../modelStore/controlPack.js';
import {
  CHUNK_CLOSE_TOKENS, CHUNK_OPEN_TOKENS, DONE, DROP, END_OF_TEXT, FILE_SEPARATOR, FIM_LAYOUTS, KEEP, NEED, REPO_NAME, SELECT,
} from '../specialTokens.js';
import type { Logger } from '../../util/logger.js';
import { PreparedTokens } from '../preparedTokens.js';
import { LlamaServerApi, ModelServerError, type ModelServerOptions } from './llamaServerApi.js';
import { RemoteSession } from './remoteSession.js';
import { declaredLayoutOf, triggerSoftmaxOf } from '../reposhapleyKeys.js';
import { adapterWarning, describeAdapters, packAdapterFor, type LoraAdapterAnswer } from './adapterCheck.js';

export { UntokenizedTextError } from '../completionModel.js';

/** Separates texts in one `/tokenize` request: llama-server copies numbers in `content` through. */
const SEPARATOR = -1;
/** Texts per `/tokenize` request, so one request stays small. */
const TEXTS_PER_REQUEST = 2_000;

interface PropsAnswer {
  total_slots?: number;
  model_path?: string;
  eos_token?: string;
  bos_token?: string;
  build_info?: string;
  default_generation_settings?: { n_ctx?: number };
}

interface ModelsAnswer {
  data?: { meta?: { n_vocab?: number; n_ctx_train?: number } }[];
}

/** Connect to the server at `options.url` and describe its model; never throws. */
export async function loadRemoteModel(options: ModelServerOptions, logger: Logger, signal?: AbortSignal): Promise<LoadModelResult> {
  const problem = urlProblem(options.url);
  if (problem) return { kind: 'invalid', message: problem };
  const api = new LlamaServerApi(options);
  try {
    const props = await api.getJson<PropsAnswer>('/props', signal);
    const models = await api.getJson<ModelsAnswer>('/v1/models', signal);
    const vocabularySize = models.data?.[0]?.meta?.n_vocab;
    const contextSize = props.default_generation_settings?.n_ctx;
    if (!vocabularySize || !contextSize) {
      return { kind: 'invalid', message: `${api.url} does not look like llama.cpp's llama-server (no vocabulary or context size in /props and /v1/models)` };
    }
    const scan = await scanRemoteSpecials(api, props, signal);
    const fileName = path.basename(props.model_path ?? 'model.gguf');
    const pack = packForFile(fileName);
    const info = describeRemote(api.url, fileName, { vocabularySize, contextSize }, scan, pack);
    const adapters = await api.getJson<LoraAdapterAnswer[]>('/lora-adapters', signal).catch((error: unknown) => {
      if (signal?.aborted) throw error;
      return error instanceof Error ? error : new Error(String(error));
    });
    const adapterProblem = adapterWarning(fileName, packAdapterFor(fileName, pack), adapters);
    for (const warning of [...scan.warnings, ...identityWarnings(info, pack, fileName), ...(adapterProblem ? [adapterProblem] : [])]) {
      logger.warn(`model server ${api.url}: ${warning}`);
    }
    logger.info(`model server ${api.url}: ${fileName} (${props.build_info ?? 'unknown build'}), vocabulary ${vocabularySize}, ` +
      `context ${contextSize} per slot, ${props.total_slots ?? 1} slots, control tokens ${info.hasControlTokens}, ${describeAdapters(adapters)}` +
      (pack ? `, control pack of ${pack.base.model} (trained: ${pack.trained})` : ''));
    return { kind: 'ok', model: new RemoteCompletionModel(api, info, props.total_slots ?? 1) };
  } catch (error) {
    if (signal?.aborted) return { kind: 'error', message: 'connecting to the model server was cancelled' };
    const why = error instanceof Error ? error.message : String(error);
    return { kind: 'error', message: `The model server is not available: ${why}. Start llama-server there, or fix reposhapley.modelServer.` };
  }
}

function urlProblem(url: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return `reposhapley.modelServer must be the URL of a llama-server, like http://gpu-box:8080; got ${JSON.stringify(url)}`;
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    return `reposhapley.modelServer must be an http:// or https:// URL; got ${JSON.stringify(url)}`;
  }
  return undefined;
}

export class RemoteCompletionModel implements CompletionModel {
  private readonly sessions = new Set<RemoteSession>();
  /** What tokenizeMany returned, for tokenize(). */
  private readonly prepared = new PreparedTokens();
  /** Bytes of ids seen in answers, for detokenize(). */
  private readonly pieces = new Map<number, number[]>();
  private readonly stopIds: Set<number>;
  private nextSlot = 0;
  private disposed = false;

  constructor(private readonly api: LlamaServerApi, readonly info: ModelInfo, private readonly slots: number) {
    const s = info.special;
    this.stopIds = new Set([s.endOfText, s.fimPrefix, s.fimSuffix, s.fimMiddle, s.repoName, s.fileSeparator, ...controlDecisionIds(s)]
      .filter((id): id is number => id !== undefined));
  }

  /** Only text tokenized before by {@link tokenizeMany}; anything else throws {@link UntokenizedTextError}. */
  tokenize(text: string): number[] {
    return this.prepared.lookup(text);
  }

  /** Tokenize plain texts (special-token text stays text) through the server, in few requests. */
  async tokenizeMany(texts: readonly string[], signal?: AbortSignal): Promise<number[][]> {
    const out: number[][] = [];
    for (let start = 0; start < texts.length; start += TEXTS_PER_REQUEST) {
      const batch = texts.slice(start, start + TEXTS_PER_REQUEST);
      out.push(...await tokenizeBatch(this.api, batch, false, signal));
    }
    this.prepared.remember(texts, out);
    return out;
  }

  detokenize(tokens: number[], specialTokens = false): string {
    const bytes: number[] = [];
    for (const id of tokens) {
      if (this.stopIds.has(id) && !specialTokens) continue;
      const piece = this.pieces.get(id);
      if (!piece) throw new Error(`token ${id} has not been seen from the model server; detokenize only what it returned`);
      bytes.push(...piece);
    }
    return new TextDecoder().decode(Uint8Array.from(bytes));
  }

  async createSession(): Promise<ModelSession> {
    if (this.disposed) throw new Error('createSession() on a disposed model');
    // Sessions take the server's slots in turn, so each editor session keeps its own prompt cache
    // where the server has slots enough.
    const slot = this.slots > 1 ? this.nextSlot++ % this.slots : undefined;
    const session: RemoteSession = new RemoteSession(this.api, slot, this.info.contextSize, this.info.vocabularySize, {
      isStopToken: (id, bytes) => this.stopIds.has(id) || bytes.length === 0,
      sawToken: (id, bytes) => {
        if (bytes.length > 0 && !this.pieces.has(id)) this.pieces.set(id, [...bytes]);
      },
      neverGenerate: controlDecisionIds(this.info.special),
    }, () => this.sessions.delete(session));
    this.sessions.add(session);
    return session;
  }

  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    await Promise.all([...this.sessions].map((s) => s.dispose()));
  }

}

/** Token ids of each text, in one `/tokenize` request. */
async function tokenizeBatch(api: LlamaServerApi, texts: readonly string[], parseSpecial: boolean, signal?: AbortSignal): Promise<number[][]> {
  if (texts.length === 0) return [];
  const content: (string | number)[] = [];
  texts.forEach((text, i) => {
    if (i > 0) content.push(SEPARATOR);
    content.push(text);
  });
  const answer = await api.postJson<{ tokens?: number[] }>('/tokenize', { content, add_special: false, parse_special: parseSpecial }, signal);
  const groups: number[][] = [[]];
  for (const id of answer.tokens ?? []) {
    if (id === SEPARATOR) groups.push([]);
    else groups[groups.length - 1]!.push(id);
  }
  if (groups.length !== texts.length) {
    throw new ModelServerError('protocol', `/tokenize returned ${groups.length} texts for ${texts.length}: not the llama-server this adapter knows`);
  }
  return groups;
}

interface RemoteScan {
  special: SpecialTokenIds;
  hasControlTokens: boolean;
  fimLayout?: string;
  addBeginOfText: boolean;
  warnings: string[];
}

/** Every special text the layouts know, looked up in the server's vocabulary. */
async function scanRemoteSpecials(api: LlamaServerApi, props: PropsAnswer, signal?: AbortSignal): Promise<RemoteScan> {
  const fimTexts = FIM_LAYOUTS.flatMap((l) => [...l.prefix, ...l.suffix, ...l.middle, ...l.endOfText]);
  const texts = [...new Set([
    ...fimTexts, END_OF_TEXT, REPO_NAME, FILE_SEPARATOR, NEED, DONE, KEEP, DROP, SELECT, ...CHUNK_OPEN_TOKENS, ...CHUNK_CLOSE_TOKENS,
    ...(props.eos_token ? [props.eos_token] : []), ...(props.bos_token ? [props.bos_token] : []),
  ])];
  const [special, plain] = [await tokenizeBatch(api, texts, true, signal), await tokenizeBatch(api, texts, false, signal)];
  const ids = new Map<string, number>();
  const warnings: string[] = [];
  texts.forEach((text, i) => {
    const [id, ...more] = special[i]!;
    if (id === undefined || more.length > 0) return;
    // A non-CONTROL token of that name, which user text produces as well (the local adapter warns alike).
    if (plain[i]!.length === 1 && plain[i]![0] === id) {
      warnings.push(`special token ${JSON.stringify(text)} (id ${id}) is not CONTROL: user text containing it tokenizes into it`);
    }
    ids.set(text, id);
  });
  const find = (text: string) => ids.get(text);
  const [withBos, withoutBos] = [
    (await api.postJson<{ tokens?: number[] }>('/tokenize', { content: 'a', add_special: true }, signal)).tokens ?? [],
    (await api.postJson<{ tokens?: number[] }>('/tokenize', { content: 'a', add_special: false }, signal)).tokens ?? [],
  ];
  const addBeginOfText = withBos.length > withoutBos.length;
  const layout = FIM_LAYOUTS.find((l) => [l.prefix, l.suffix, l.middle].every((group) => group.some((t) => ids.has(t))));
  const first = (group: readonly string[]) => group.map(find).find((id) => id !== undefined);
  const chunkOpen = CHUNK_OPEN_TOKENS.map(find);
  const chunkClose = CHUNK_CLOSE_TOKENS.map(find);
  const chunksComplete = [...chunkOpen, ...chunkClose].every((id) => id !== undefined);
  const scanned: SpecialTokenIds = {
    fimPrefix: layout ? first(layout.prefix) : undefined,
    fimSuffix: layout ? first(layout.suffix) : undefined,
    fimMiddle: layout ? first(layout.middle) : undefined,
    endOfText: first(layout?.endOfText ?? [END_OF_TEXT]) ?? (props.eos_token ? find(props.eos_token) : undefined),
    // As the GGUF names it, whether or not the model wants it first.
    beginOfText: (props.bos_token ? find(props.bos_token) : undefined) ?? (addBeginOfText ? withBos[0] : undefined),
    repoName: find(REPO_NAME), fileSeparator: find(FILE_SEPARATOR),
    need: find(NEED), done: find(DONE), keep: find(KEEP), drop: find(DROP), select: find(SELECT),
    chunkOpen: chunksComplete ? (chunkOpen as number[]) : undefined,
    chunkClose: chunksComplete ? (chunkClose as number[]) : undefined,
  };
  const control = [scanned.need, scanned.done, scanned.keep, scanned.drop, scanned.select].every((id) => id !== undefined);
  return {
    special: Object.fromEntries(Object.entries(scanned).filter(([, v]) => v !== undefined)) as SpecialTokenIds,
    hasControlTokens: control && chunksComplete,
    fimLayout: layout?.name,
    addBeginOfText,
    warnings,
  };
}

/** The repository's control pack whose derived file is called `fileName`, if any. */
function packForFile(fileName: string, dir = controlPacksDir()): ControlPack | undefined {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return undefined;
  }
  return names.map((name) => controlPackManifest(name, dir)).find((pack) => pack?.derived.fileName === fileName);
}

function describeRemote(
  url: string, fileName: string, sizes: { vocabularySize: number; contextSize: number }, scan: RemoteScan, pack: ControlPack | undefined,
): ModelInfo {
  return {
    path: `${url}#${fileName}`,
    architecture: 'unknown (llama-server)',
    name: fileName,
    contextSize: sizes.contextSize,
    vocabularySize: sizes.vocabularySize,
    special: scan.special,
    hasControlTokens: scan.hasControlTokens,
    // The GGUF's own keys are out of reach: a known pack says; an unknown model is trusted, as locally.
    controlTokensTrained: scan.hasControlTokens && (pack?.trained ?? true),
    needThreshold: pack?.needThreshold,
    echoLines: 0,
    declaredLayout: declaredLayoutOf(pack?.layout),
    triggerSoftmax: triggerSoftmaxOf(pack?.trigger),
    vocabularyDecisions: false,
    fimLayout: scan.fimLayout,
    addBeginOfText: scan.addBeginOfText,
    gpuLayers: 0,
    threads: 0,
  };
}

/** Warnings about what the remote model lacks for the layouts and the policy. */
function identityWarnings(info: ModelInfo, pack: ControlPack | undefined, fileName: string): string[] {
  const warnings: string[] = [];
  if (info.special.fimPrefix === undefined) warnings.push(`${fileName} has no fill-in-the-middle tokens; completions will be poor`);
  if (!info.hasControlTokens) {
    warnings.push(`${fileName} lacks RepoShapley's control tokens (<NEED> … </C_10>): the reposhapley policy cannot run, auto uses full retrieval`);
  } else if (!pack) {
    warnings.push(`${fileName} has control tokens but no control pack here names it, so whether they are trained and its t_c are unknown ` +
      '(llama-server does not expose GGUF metadata): serve the file `model pull` derives, under its own name');
  }
  return warnings;
}
