/**
 * Emacs end-to-end: docs/editors.md's eglot and lsp-mode blocks, each run as written (only its
 * placeholders filled in), in `emacs --batch` (Debian 12's Emacs 28 with its eglot 1.9, lsp-mode
 * 8.0 and go-mode packages). A driver (emacs/driver.el) opens a fixture file, types a partial name
 * on its last line, connects the client and runs `completion-at-point` (C-M-i), which asks the
 * server through textDocument/completion and inserts what it offers; then it saves the file. The
 * line must end with exactly the server's completion (e2eModel.ts), in a Python and a Go file.
 *
 * Runs when `emacs` is on PATH, or with REPOSHAPLEY_E2E=1 (which then requires it).
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { EMACS_PACKAGES, emacsSkipReason, findEmacs, MAIN_JS, REPO_ROOT } from './e2eEnv.js';
import { prepareFixtureCases } from './e2eModel.js';

const SKIP = emacsSkipReason();
if (SKIP) console.info(`[e2e] Emacs end-to-end test skipped: ${SKIP}`);
const DRIVER = path.join(REPO_ROOT, 'test', 'e2e', 'emacs', 'driver.el');
/** Each typed after a partial name: eglot offers only items that continue the symbol at point. */
const FILES = [
  { file: 'main.py', typed: 'result = perim', mode: 'python-mode' },
  { file: 'geometry.go', typed: 'var total = are', mode: 'go-mode' },
] as const;
/** The clients, by the heading of their block in docs/editors.md. */
const CLIENTS = [
  { client: 'eglot', heading: '## Emacs (eglot)', options: /:initializationOptions \([^)]*\)/, server: 'reposhapley' },
  { client: 'lsp-mode', heading: '## Emacs (lsp-mode)', options: /:initialization-options '\([^)]*\)/, server: 'reposhapley' },
] as const;
type Client = (typeof CLIENTS)[number];
const CASES = CLIENTS.flatMap((client) => FILES.map((file, i) => ({ ...client, ...file, i })));

/** What the driver reports. */
interface DriverReport {
  error?: string;
  mode?: string;
  completionProvider?: boolean;
  /** The servers managing the buffer: eglot's name for its server, lsp-mode's server ids. */
  servers?: string[];
  /** The line the cursor is on after completing. */
  line?: string;
}

/**
 * A client's block of docs/editors.md with its placeholders filled in. Policy `none` and one thread
 * make the completion depend on the document alone (no index timing), as for e2eModel.ts's CLI run.
 */
function docsEmacsConfig({ client, heading, options }: Client, modelPath: string): string {
  const editors = readFileSync(path.join(REPO_ROOT, 'docs', 'editors.md'), 'utf8');
  const section = editors.slice(editors.indexOf(heading));
  const block = /```elisp\n([\s\S]*?)```/.exec(section)?.[1];
  if (!editors.includes(heading) || !block) throw new Error(`docs/editors.md has no \`\`\`elisp block under "${heading}"`);
  const settings = `(:modelPath ${JSON.stringify(modelPath)} :policy "none" :threads 1)`;
  const filled = block
    .replace('"node"', JSON.stringify(process.execPath))
    .replace('/path/to/reposhapley/dist/server/src/main.js', MAIN_JS)
    .replace(options, (found) => `${found.slice(0, found.indexOf('('))}${settings}`);
  for (const [what, present] of [['server path', filled.includes(MAIN_JS)], ['initialization options', filled.includes(modelPath)]] as const) {
    if (!present) throw new Error(`docs/editors.md's ${client} block changed shape: could not fill in the ${what}`);
  }
  return filled;
}

describe.skipIf(SKIP !== undefined)(`Emacs (eglot, lsp-mode) end-to-end${SKIP ? ` (skipped: ${SKIP})` : ''}`, () => {
  let tmp: string;
  let modelPath: string;
  let completions: string[];

  beforeAll(async () => {
    tmp = mkdtempSync(path.join(os.tmpdir(), 'reposhapley-emacs-'));
    ({ modelPath, completions } = await prepareFixtureCases(tmp, FILES));
    for (const client of CLIENTS) writeFileSync(path.join(tmp, `${client.client}.el`), docsEmacsConfig(client, modelPath));
  }, 240_000);

  afterAll(() => {
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  });

  test.each(CASES)(
    'the documented $client block completes the name typed in $file through completion-at-point',
    ({ client, server, file, typed, mode, i }) => {
      const emacs = findEmacs();
      if (!emacs) throw new Error(`REPOSHAPLEY_E2E=1 needs Emacs: apt-get install ${EMACS_PACKAGES}`);
      // Each run types into a fresh copy: the workspace the expected completion was computed for.
      const workspace = path.join(tmp, `${client}-${i}`);
      cpSync(path.join(tmp, `workspace-${i}`), workspace, { recursive: true });
      const original = readFileSync(path.join(workspace, file), 'utf8');
      const reportFile = path.join(tmp, `report-${client}-${i}.json`);
      // Packages are activated before the init file, as Emacs does at startup (batch mode does not).
      const run = spawnSync(emacs, ['--batch', '--eval', '(package-activate-all)', '-l', path.join(tmp, `${client}.el`), '-l', DRIVER], {
        cwd: workspace, encoding: 'utf8', timeout: 150_000,
        env: { ...process.env, RS_CLIENT: client, RS_FILE: file, RS_TYPED: typed, RS_OUT: reportFile, HOME: tmp },
      });
      const report = JSON.parse(readFileSync(reportFile, 'utf8')) as DriverReport;
      expect(report.error, `emacs exited ${run.status}: ${run.stderr}`).toBeUndefined();
      expect(report.mode).toBe(mode);
      expect(report.servers).toContain(server);
      expect(report.completionProvider).toBe(true);
      expect(report.line).toBe(`${typed}${completions[i]}`);
      expect(readFileSync(path.join(workspace, file), 'utf8')).toBe(`${original}${typed}${completions[i]}\n`);
      // The status notifications reach lsp-mode's handler, not its "Unknown notification" warning.
      expect(run.stderr).not.toContain('Unknown notification');
    },
    180_000,
  );
});
