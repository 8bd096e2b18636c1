/**
 * Where the end-to-end tests find things, and whether they run. They are heavy (a real VS Code
 * in headless Chromium, a real Neovim, a real Emacs), so the VS Code test runs only with
 * REPOSHAPLEY_E2E=1 (`npm run test:e2e`, which CI runs); the Neovim and Emacs tests run when their
 * editor is on PATH or when REPOSHAPLEY_E2E=1 asks for everything.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { REPO_ROOT, SERVER_MAIN_JS } from '../../bench/src/repoPaths.js';

export { REPO_ROOT };

export const CLIENT_DIR = path.join(REPO_ROOT, 'client-vscode');
/** What `npm run package` builds. */
export const VSIX = path.join(CLIENT_DIR, 'reposhapley-linux-x64.vsix');
export const MAIN_JS = SERVER_MAIN_JS;
export const E2E_WORKSPACE_FIXTURE = path.join(REPO_ROOT, 'test', 'fixtures', 'e2e-workspace');
/** Screenshots and logs of the last run (gitignored). */
export const ARTIFACTS_DIR = path.join(REPO_ROOT, 'test', 'e2e', 'artifacts');

/** code-server as ../shared/tools/install-code-server.sh installs it. */
export const CODE_SERVER_DIR = process.env.CODE_SERVER_DIR ?? path.join(os.homedir(), '.cache', 'code-server-e2e');
export const CODE_SERVER_ENTRY = path.join(CODE_SERVER_DIR, 'node_modules', 'code-server', 'out', 'node', 'entry.js');
const INSTALL_SCRIPT = path.join(path.dirname(REPO_ROOT), 'shared', 'tools', 'install-code-server.sh');
/** Debian's Chromium, which the install script installs. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Whether all end-to-end tests were asked for. */
export const E2E_REQUESTED = process.env.REPOSHAPLEY_E2E === '1';

/** Why the VS Code test is skipped, or undefined when it runs. */
export function vscodeSkipReason(): string | undefined {
  if (E2E_REQUESTED) return undefined;
  return 'set REPOSHAPLEY_E2E=1 (or run `npm run test:e2e`) to run it; it installs code-server into ~/.cache/code-server-e2e';
}

/** `nvim` on PATH, if any. */
export function findNeovim(): string | undefined {
  return onPath('nvim');
}

/** `emacs` on PATH, if any. */
export function findEmacs(): string | undefined {
  return onPath('emacs');
}

function onPath(command: string): string | undefined {
  const found = spawnSync('sh', ['-c', `command -v ${command}`], { encoding: 'utf8' });
  return found.status === 0 ? found.stdout.trim() : undefined;
}

/** Why the Neovim test is skipped, or undefined when it runs (REPOSHAPLEY_E2E=1 requires nvim). */
export function neovimSkipReason(): string | undefined {
  if (E2E_REQUESTED || findNeovim()) return undefined;
  return 'no `nvim` on PATH: `apt-get install neovim`, or set REPOSHAPLEY_E2E=1';
}

/** The Emacs packages the Emacs test drives, as Debian names them. */
export const EMACS_PACKAGES = 'emacs-nox elpa-eglot elpa-lsp-mode elpa-go-mode';

/**
 * Why the Emacs test is skipped, or undefined when it runs (REPOSHAPLEY_E2E=1 requires it): an
 * Emacs on PATH whose installed packages hold eglot, lsp-mode and go-mode, as apt installs them.
 */
export function emacsSkipReason(): string | undefined {
  if (E2E_REQUESTED) return undefined;
  const emacs = findEmacs();
  const loads = emacs && spawnSync(emacs, ['--batch', '--eval', "(progn (package-activate-all) (require 'eglot) (require 'lsp-mode) (require 'go-mode))"], { stdio: 'ignore', timeout: 30_000 }).status === 0;
  if (loads) return undefined;
  return `${emacs ? 'this Emacs lacks eglot, lsp-mode or go-mode' : 'no `emacs` on PATH'}: \`apt-get install ${EMACS_PACKAGES}\`, or set REPOSHAPLEY_E2E=1`;
}

/**
 * Installs code-server and Chromium with the shared script. The script is idempotent (a marker
 * file makes a second run instant), so it always runs when it is there. Throws with its output.
 */
export function ensureCodeServer(): void {
  if (!existsSync(INSTALL_SCRIPT)) {
    if (existsSync(CODE_SERVER_ENTRY) && existsSync(CHROMIUM)) return;
    throw new Error(`code-server is not installed and ${INSTALL_SCRIPT} is missing`);
  }
  const result = spawnSync('bash', [INSTALL_SCRIPT, CODE_SERVER_DIR], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  if (result.status !== 0) throw new Error(`install-code-server.sh failed (${result.status}):\n${result.stdout}\n${result.stderr}`);
}

/** Fails with the fix when the packaged extension is missing. */
export function requireVsix(): string {
  if (!existsSync(VSIX)) throw new Error(`${VSIX} is missing: run \`npm run package\` (or \`npm run test:e2e\`, which does)`);
  return VSIX;
}
