/**
 * What the server sends a model, recorded: the committed small tokenizer (through node-llama-cpp)
 * with the control tokens' ids, a model whose session keeps every prompt it is asked to continue,
 * and the pipeline (completion/pipeline.ts) run once over a fixture repository. Tests of training
 * data compare their sequences with these prompts: training bytes must be inference bytes.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEFAULT_SETTINGS, type CompletionSettings } from '../../shared/settings.js';
import { runPipeline } from '../../server/src/completion/pipeline.js';
import type { CompletionModel, GenerationOptions, ModelSession, SpecialTokenIds } from '../../server/src/model/completionModel.js';
import { REPOSHAPLEY_SPECIAL_TOKENS } from '../../server/src/model/specialTokens.js';
import { chooseLayout } from '../../server/src/prompt/layouts.js';
import { LineTokenizer } from '../../server/src/prompt/lineTokenizer.js';
import { silentLogger } from '../../server/src/util/logger.js';
import { openRepository } from '../../models/data/repositoryTools.js';
import { loadLlamaVocab, type LlamaVocab } from '../../models/tokenizer/llamaVocab.js';
import { readArtifact, specialIds, tokenId, type TokenizerArtifact } from '../../models/tokenizer/tokenizerArtifact.js';

const TOKENIZER = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'models', 'default', 'tokenizer.json');

/** The committed tokenizer, loaded; dispose it after the tests. */
export interface TestVocabulary {
  vocab: LlamaVocab;
  special: SpecialTokenIds;
  size: number;
  tokenizer(): LineTokenizer;
  dispose(): Promise<void>;
}

export async function loadTestVocabulary(): Promise<TestVocabulary> {
  const artifact: TokenizerArtifact = await readArtifact(TOKENIZER);
  const vocab = await loadLlamaVocab(artifact);
  const ids = specialIds(artifact);
  const id = (text: string) => tokenId(artifact, text);
  const special: SpecialTokenIds = {
    fimPrefix: ids.fimPrefix, fimSuffix: ids.fimSuffix, fimMiddle: ids.fimMiddle, endOfText: ids.endOfText,
    need: id('<NEED>'), done: id('<DONE>'), keep: id('<KEEP>'), drop: id('<DROP>'), select: id('<SELECT>'),
    chunkOpen: REPOSHAPLEY_SPECIAL_TOKENS.filter((t) => /^<C_/.test(t)).map(id),
    chunkClose: REPOSHAPLEY_SPECIAL_TOKENS.filter((t) => /^<\/C_/.test(t)).map(id),
  };
  return {
    vocab, special, size: artifact.tokens.length,
    tokenizer: () => new LineTokenizer({ tokenize: vocab.tokenize }),
    dispose: () => vocab.dispose(),
  };
}

/** A model whose session records the prompt it is asked to continue, and answers nothing. */
export function recordingModel(vocabulary: TestVocabulary, contextSize: number, echoLines: number): CompletionModel & { prompts: number[][] } {
  const prompts: number[][] = [];
  const session: ModelSession = {
    lastReusedTokens: 0, totalReusedTokens: 0,
    async decide() { throw new Error('not used'); },
    async decideSequence() { throw new Error('not used'); },
    async generate(tokens: number[], _options: GenerationOptions) {
      prompts.push(tokens);
      return { text: '', tokens: [], stoppedBy: 'eos' as const };
    },
    async logLikelihood() { return 0; },
    async dispose() {},
  };
  return {
    prompts,
    info: {
      path: 'recording.gguf', architecture: 'llama', contextSize, vocabularySize: vocabulary.size, special: vocabulary.special,
      hasControlTokens: true, fimLayout: 'reposhapley', gpuLayers: 0, threads: 1, controlTokensTrained: false, echoLines,
      triggerSoftmax: 'pair', vocabularyDecisions: true,
    },
    tokenize: (text) => vocabulary.vocab.tokenize(text),
    detokenize: (tokens) => vocabulary.vocab.detokenize(tokens),
    createSession: async () => session,
    dispose: async () => {},
  };
}

/** Where a completion is asked for: the file and the span the buffer lacks (the target). */
export interface PromptSite {
  relPath: string;
  line: number;
  character: number;
  start: number;
  end: number;
}

/**
 * What the server sends to the model at `site` under `policy`: a fresh index of `root` with the
 * buffer (the file without the target) open, as the engine has it.
 */
export async function inferencePrompt(
  vocabulary: TestVocabulary, root: string, site: PromptSite, fileText: string, policy: 'none' | 'full',
  options: { contextSize: number; echoLines: number; settings?: CompletionSettings },
): Promise<number[]> {
  const settings = options.settings ?? DEFAULT_SETTINGS;
  const tokenizer = vocabulary.tokenizer();
  const repo = await openRepository(root, settings, tokenizer);
  try {
    const buffer = fileText.slice(0, site.start) + fileText.slice(site.end);
    const absPath = path.join(root, site.relPath);
    repo.index.openDocument(absPath, buffer);
    const model = recordingModel(vocabulary, options.contextSize, options.echoLines);
    await runPipeline({
      uri: `file://${absPath}`, text: buffer, relPath: site.relPath, position: { line: site.line, character: site.character },
      settings: { ...settings, policy }, model, session: await model.createSession(), tokenizer,
      layout: chooseLayout(model.info), repoName: path.basename(root),
    }, { index: repo.index, retriever: repo.retriever, logger: silentLogger }, new AbortController().signal);
    if (model.prompts.length !== 1) throw new Error(`the pipeline sent ${model.prompts.length} prompts, not one`);
    return model.prompts[0]!;
  } finally {
    repo.dispose();
  }
}
