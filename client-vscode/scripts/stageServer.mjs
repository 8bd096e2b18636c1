#!/usr/bin/env node
/**
 * Lays out the language server the .vsix carries, in client-vscode/server/:
 *
 *   server/package.json          name "reposhapley", ESM, the root's version and dependencies
 *   server/dist/{server,shared}/ the built server (`npm run build` at the repository root)
 *   server/node_modules/         the server's runtime dependency closure, copied from the root's
 *                                node_modules (the versions the tests ran), for ONE platform
 *   server/models/default/       the bundled default model, when the repository has one
 *   server/models/control/       the control packs `model pull` applies to pulled models (rows and adapter, ~4 MB; not their labels or training checkpoints)
 *   server/models/adapters/      the adapter packs: a LoRA for a catalog model's base file (adapter.json and adapter.gguf; not training checkpoints)
 *
 * Why copy instead of `npm install`: offline, and byte-for-byte the tested dependencies.
 * Why one platform: node-llama-cpp's optional binaries for every platform are ~700 MB; the
 * CPU build for linux-x64 is ~30 MB. llama.cpp's source bundle (only needed to compile
 * llama.cpp, which the server never does: `build: 'never'`) and the grammar packages' C sources
 * and native prebuilds (the server uses their .wasm files) are left out too.
 *
 *   node scripts/stageServer.mjs [--target linux-x64]
 */
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const CLIENT_DIR = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const REPO_ROOT = path.dirname(CLIENT_DIR);
const OUT = path.join(CLIENT_DIR, 'server');

/** node-llama-cpp binary packages per VS Code target (CPU builds: GPU ones are hundreds of MB). */
const LLAMA_BINARIES = {
  'linux-x64': '@node-llama-cpp/linux-x64',
  'linux-arm64': '@node-llama-cpp/linux-arm64',
  'darwin-arm64': '@node-llama-cpp/mac-arm64-metal',
  'darwin-x64': '@node-llama-cpp/mac-x64',
  'win32-x64': '@node-llama-cpp/win-x64',
};

/** Paths inside packages the server never reads at run time. */
const SKIPPED = [
  /^node-llama-cpp\/llama\/gitRelease\.bundle$/,
  // A grammar package is read for its .wasm only: its C sources and native builds are ~70 MB in all.
  /^tree-sitter-[a-z]+\/(?!(package\.json|LICENSE|README\.md|[^/]+\.wasm)$)/,
  /\.(map|d\.ts|d\.mts|d\.cts|tsbuildinfo)$/,
  /(^|\/)(CHANGELOG|HISTORY)\.md$/i,
];

function parseTarget(argv) {
  const at = argv.indexOf('--target');
  const target = at >= 0 ? argv[at + 1] : 'linux-x64';
  if (!LLAMA_BINARIES[target]) throw new Error(`unsupported target ${target}; one of ${Object.keys(LLAMA_BINARIES).join(', ')}`);
  return target;
}

function readJson(file) {
  return JSON.parse(readFileSync(file, 'utf8'));
}

/** Node's lookup: <from>/node_modules/<name>, then each parent's, up to the repository root. */
function resolvePackageDir(name, fromDir) {
  for (let dir = fromDir; ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, 'node_modules', name);
    if (existsSync(path.join(candidate, 'package.json'))) return candidate;
    if (dir === REPO_ROOT || path.dirname(dir) === dir) return undefined;
  }
}

/** Every package directory the root's runtime dependencies reach (dependencies + wanted optionals). */
function dependencyClosure(rootDependencies, llamaBinary) {
  const seen = new Set();
  const queue = rootDependencies.map((name) => ({ name, from: REPO_ROOT, optional: false }));
  while (queue.length > 0) {
    const { name, from, optional } = queue.shift();
    if (name.startsWith('@node-llama-cpp/') && name !== llamaBinary) continue;
    const dir = resolvePackageDir(name, from);
    if (!dir) {
      if (optional) continue;
      throw new Error(`dependency ${name} (needed from ${path.relative(REPO_ROOT, from) || '.'}) is not installed: run npm ci at the root`);
    }
    if (seen.has(dir)) continue;
    seen.add(dir);
    const manifest = readJson(path.join(dir, 'package.json'));
    for (const dep of Object.keys(manifest.dependencies ?? {})) queue.push({ name: dep, from: dir, optional: false });
    for (const dep of Object.keys(manifest.optionalDependencies ?? {})) queue.push({ name: dep, from: dir, optional: true });
  }
  if (![...seen].some((dir) => dir.endsWith(path.join('node_modules', llamaBinary)))) {
    throw new Error(`${llamaBinary} is not installed at the root; it holds the llama.cpp binary for this target`);
  }
  return [...seen].sort();
}

/** Copies one package directory (without its nested node_modules, which are packages of their own). */
function copyPackage(dir) {
  const relative = path.relative(path.join(REPO_ROOT, 'node_modules'), dir).split(path.sep).join('/');
  const packageName = relative.replace(/^.*node_modules\//, '');
  cpSync(dir, path.join(OUT, 'node_modules', relative), {
    recursive: true,
    dereference: true,
    filter: (source) => {
      const inside = path.relative(dir, source).split(path.sep).join('/');
      if (inside === '') return true;
      if (inside === 'node_modules' || inside.startsWith('node_modules/')) return false;
      return !SKIPPED.some((pattern) => pattern.test(`${packageName}/${inside}`));
    },
  });
}

function copyBuiltServer() {
  const built = path.join(REPO_ROOT, 'dist', 'server', 'src', 'main.js');
  if (!existsSync(built)) throw new Error('the server is not built: run `npm run build` at the repository root');
  for (const part of ['server/src', 'shared']) {
    cpSync(path.join(REPO_ROOT, 'dist', part), path.join(OUT, 'dist', part), {
      recursive: true,
      filter: (source) => statSync(source).isDirectory() || (source.endsWith('.js') && !source.endsWith('.test.js')),
    });
  }
}

/** The default model (models/default/*.gguf), found by the server relative to server/package.json. */
function copyDefaultModel() {
  const dir = path.join(REPO_ROOT, 'models', 'default');
  const ggufs = existsSync(dir) ? readdirSync(dir).filter((file) => file.endsWith('.gguf')) : [];
  for (const file of ggufs) cpSync(path.join(dir, file), path.join(OUT, 'models', 'default', file));
  return ggufs;
}

/** A pack's folders that only its training reads: the labels, and checkpoints of runs in progress. */
const TRAINING_ONLY = new Set(['labels', 'training']);

/**
 * The packs of one kind (models/<kind>/<name>/, each with its `manifest`), which the server finds
 * next to models/default: control packs (pack.json) and adapter packs (adapter.json).
 */
function copyPacks(kind, manifest) {
  const dir = path.join(REPO_ROOT, 'models', kind);
  if (!existsSync(dir)) return [];
  const packs = readdirSync(dir).filter((name) => existsSync(path.join(dir, name, manifest)));
  for (const name of packs) {
    const pack = path.join(dir, name);
    const servedOnly = (source) => !TRAINING_ONLY.has(path.relative(pack, source).split(path.sep)[0]);
    cpSync(pack, path.join(OUT, 'models', kind, name), { recursive: true, filter: servedOnly });
  }
  return packs;
}

function main() {
  const target = parseTarget(process.argv.slice(2));
  const root = readJson(path.join(REPO_ROOT, 'package.json'));
  rmSync(OUT, { recursive: true, force: true });
  mkdirSync(OUT, { recursive: true });
  writeFileSync(path.join(OUT, 'package.json'), `${JSON.stringify({
    name: root.name, version: root.version, private: true, type: 'module', license: root.license,
    bin: root.bin, dependencies: root.dependencies,
  }, null, 2)}\n`);
  copyBuiltServer();
  const packages = dependencyClosure(Object.keys(root.dependencies ?? {}), LLAMA_BINARIES[target]);
  for (const dir of packages) copyPackage(dir);
  const models = copyDefaultModel();
  const packs = copyPacks('control', 'pack.json');
  const adapters = copyPacks('adapters', 'adapter.json');
  console.log(`staged server for ${target}: ${packages.length} packages, default model: ${models.join(', ') || 'none (set reposhapley.modelPath)'}, ` +
    `control packs: ${packs.join(', ') || 'none'}, adapter packs: ${adapters.join(', ') || 'none'}`);
}

main();
