/**
 * Neovim end-to-end: the README's Neovim configuration, run as written (only its placeholders
 * filled in), in a headless Neovim (Debian 12's 0.7, which has no inline completion). A driver
 * (neovim/driver.lua) types in a fixture file, asks for omni completion (<C-x><C-o>, which sends
 * textDocument/completion), accepts the first item and writes the file. The item must be the
 * server's completion (e2eModel.ts) and the file must end with exactly it: in a Python, a Go and
 * a TypeScript file, each opened by its own Neovim (FileType starts the client).
 *
 * Runs when `nvim` is on PATH, or with REPOSHAPLEY_E2E=1 (which then requires it).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { findNeovim, MAIN_JS, neovimSkipReason, REPO_ROOT } from './e2eEnv.js';
import { prepareFixtureCases } from './e2eModel.js';

const SKIP = neovimSkipReason();
if (SKIP) console.info(`[e2e] Neovim end-to-end test skipped: ${SKIP}`);
/** Each typed after a partial name, which the item must continue (Neovim filters by it). */
const CASES = [
  { file: 'main.py', typed: 'result = perim' },
  { file: 'geometry.go', typed: 'var total = are' },
  { file: 'shapes.ts', typed: 'const total = are' },
] as const;
/** The name being typed at the end of `typed`: what the item replaces (server/src/lsp/completion.ts). */
const WORD_BEFORE_CURSOR = /[\p{L}\p{N}_$]+$/u;
const DRIVER = path.join(REPO_ROOT, 'test', 'e2e', 'neovim', 'driver.lua');

/** What the driver reports. */
interface DriverReport {
  error?: string;
  completion_provider?: boolean;
  omnifunc?: string;
  attached?: boolean;
  /** complete_info().mode: 'eval', as vim.lsp.omnifunc fills the menu with complete(). */
  mode?: string;
  items?: { word: string; abbr: string; menu: string }[];
}

/**
 * The README's Neovim block with its placeholders filled in. Policy `none` and one thread make
 * the completion depend on the document alone (no index timing), as for e2eModel.ts's CLI run.
 */
function readmeNeovimConfig(modelPath: string): string {
  const readme = readFileSync(path.join(REPO_ROOT, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('### Neovim'));
  const block = /```lua\n([\s\S]*?)```/.exec(section)?.[1];
  if (!block) throw new Error('README.md has no ```lua block under "### Neovim"');
  const filled = block
    .replace("'node'", `'${process.execPath}'`)
    .replace('/path/to/reposhapley/dist/server/src/main.js', MAIN_JS)
    .replace(/init_options = \{[^}]*\}/, `init_options = { modelPath = '${modelPath}', policy = 'none', threads = 1 }`);
  for (const [what, present] of [['server path', filled.includes(MAIN_JS)], ['init_options', filled.includes(modelPath)]] as const) {
    if (!present) throw new Error(`the README's Neovim block changed shape: could not fill in the ${what}`);
  }
  return filled;
}

describe.skipIf(SKIP !== undefined)(`Neovim end-to-end${SKIP ? ` (skipped: ${SKIP})` : ''}`, () => {
  let tmp: string;
  let modelPath: string;
  let completions: string[];

  beforeAll(async () => {
    tmp = mkdtempSync(path.join(os.tmpdir(), 'reposhapley-nvim-'));
    ({ modelPath, completions } = await prepareFixtureCases(tmp, CASES, '\n'));
    writeFileSync(path.join(tmp, 'init.lua'), readmeNeovimConfig(modelPath));
  }, 240_000);

  afterAll(() => {
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  });

  test.each(CASES.map((testCase, i) => ({ ...testCase, i })))(
    'the README configuration gets the completion in $file through textDocument/completion and <C-y> inserts it',
    ({ file, typed, i }) => {
      const nvim = findNeovim();
      if (!nvim) throw new Error('REPOSHAPLEY_E2E=1 needs Neovim: apt-get install neovim');
      const workspace = path.join(tmp, `workspace-${i}`);
      const original = readFileSync(path.join(workspace, file), 'utf8');
      const reportFile = path.join(tmp, `report-${i}.json`);
      const run = spawnSync(nvim, ['--headless', '-n', '-i', 'NONE', '--noplugin', '-u', path.join(tmp, 'init.lua'), '-c', `luafile ${DRIVER}`, file], {
        cwd: workspace, encoding: 'utf8', timeout: 150_000,
        env: { ...process.env, RS_TYPED: typed, RS_OUT: reportFile, XDG_STATE_HOME: tmp, XDG_CACHE_HOME: tmp },
      });
      const report = JSON.parse(readFileSync(reportFile, 'utf8')) as DriverReport;
      expect(report.error, `nvim exited ${run.status}: ${run.stderr}`).toBeUndefined();
      expect(report.attached).toBe(true);
      expect(report.completion_provider).toBe(true);
      expect(report.omnifunc).toBe('v:lua.vim.lsp.omnifunc');
      // The item replaces the name being typed with it and the completion, as eglot needs.
      const word = WORD_BEFORE_CURSOR.exec(typed)![0];
      expect(report.items?.map((item) => item.word)).toEqual([`${word}${completions[i]}`]);
      expect(readFileSync(path.join(workspace, file), 'utf8')).toBe(`${original}${typed}${completions[i]}\n`);
    },
    180_000,
  );
});
