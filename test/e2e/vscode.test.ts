/**
 * End-to-end in a real VS Code: code-server in headless Chromium installs the packaged .vsix,
 * opens a copy of test/fixtures/e2e-workspace, and a user types in main.py, then in a TypeScript
 * and a Go file. The ghost text must be exactly the completion the server's engine computes for
 * that document (see e2eModel.ts), Tab must insert exactly it, and the failure paths must each
 * show one message with the fix.
 *
 * Runs with REPOSHAPLEY_E2E=1 (`npm run test:e2e`); screenshots and logs land in
 * test/e2e/artifacts/. The tests share one VS Code session and run in order.
 */
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { launchChromium, type E2eBrowser, type E2ePage } from './browser.js';
import { findLogs, installExtension, processesWith, startCodeServer, type CodeServer, type CodeServerDirs } from './codeServer.js';
import { ARTIFACTS_DIR, E2E_WORKSPACE_FIXTURE, ensureCodeServer, requireVsix, vscodeSkipReason } from './e2eEnv.js';
import { defaultModelCompletion, hasDefaultModel, prepareCompletions, userModelCacheDir, type ExpectedCompletion } from './e2eModel.js';

const SKIP = vscodeSkipReason();
if (SKIP) console.info(`[e2e] VS Code end-to-end test skipped: ${SKIP}`);
const FILE = 'main.py';
/** Typed on the empty last line of main.py: no brackets or quotes, so no auto-closing. */
const TYPED = 'result = perim';
const SETTINGS = path.join('.vscode', 'settings.json');
/** The README's screenshot: a file that uses the fixture's code, and a line to complete in it. */
const DEMO_FILE = 'demo.py';
const DEMO_TEXT = 'from main import perimeter\nfrom pkg import Point\n\ntriangle = [Point(0, 0), Point(3, 0), Point(3, 4)]\n';
const DEMO_TYPED = 'length = perim';
const USER_MODEL_CACHE = userModelCacheDir();
/** Files of other languages, each typed on its empty last line (no brackets or quotes, no auto-closing). */
const OTHER_LANGUAGES = [
  { file: 'shapes.ts', typed: 'const total = are' },
  { file: 'geometry.go', typed: 'var total = are' },
] as const;

describe.skipIf(SKIP !== undefined)(`VS Code end-to-end${SKIP ? ` (skipped: ${SKIP})` : ''}`, () => {
  let tmp: string;
  let workspace: string;
  let dirs: CodeServerDirs;
  let expected: ExpectedCompletion;
  /** The completions after OTHER_LANGUAGES' typed text, with the same model. */
  let otherCompletions: string[];
  let codeServer: CodeServer | undefined;
  let browser: E2eBrowser | undefined;
  let page: E2ePage;
  let original: string;

  beforeAll(async () => {
    ensureCodeServer();
    const vsix = requireVsix();
    rmSync(ARTIFACTS_DIR, { recursive: true, force: true });
    mkdirSync(ARTIFACTS_DIR, { recursive: true });
    tmp = mkdtempSync(path.join(os.tmpdir(), 'reposhapley-e2e-'));
    workspace = path.join(tmp, 'workspace');
    cpSync(E2E_WORKSPACE_FIXTURE, workspace, { recursive: true });
    original = readFileSync(path.join(workspace, FILE), 'utf8');
    // Written now, so the editor's file search knows it by the time the last test opens it.
    writeFileSync(path.join(workspace, DEMO_FILE), DEMO_TEXT);
    const cases = [{ file: FILE, typed: TYPED }, ...OTHER_LANGUAGES].map((c) => ({ ...c, workspace, policy: 'none' as const, threads: 1 }));
    const prepared = await prepareCompletions(cases, path.join(tmp, 'model'));
    expected = { modelPath: prepared.modelPath, seed: prepared.seed, completion: prepared.completions[0]! };
    otherCompletions = prepared.completions.slice(1);
    writeWorkspaceSettings({ 'reposhapley.modelPath': expected.modelPath, 'reposhapley.threads': 1 });
    dirs = { extensionsDir: path.join(tmp, 'extensions'), userDataDir: path.join(tmp, 'user-data') };
    installExtension(vsix, dirs);
    codeServer = await startCodeServer(workspace, dirs, path.join(ARTIFACTS_DIR, 'code-server.log'));
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await page.goto(codeServer.url, { timeout: 60_000 });
    await page.locator('.monaco-workbench').waitFor({ timeout: 90_000 });
  }, 600_000);

  afterAll(async () => {
    if (browser) {
      await page.screenshot({ path: path.join(ARTIFACTS_DIR, 'last.png') }).catch(() => {});
      await browser.close();
    }
    await codeServer?.stop();
    for (const log of dirs ? findLogs(dirs.userDataDir, 'RepoShapley') : []) cpSync(log, path.join(ARTIFACTS_DIR, `extension-${path.basename(log)}`));
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  }, 60_000);

  test('typing shows the server\'s completion as ghost text and Tab inserts exactly it', async () => {
    await runCommand('Go to File...', FILE);
    await statusIs('ready', 120_000);
    // The server's start (up to two minutes here) leaves time for a toast or a view to take
    // focus; typing must land in main.py's editor, so focus it again once the server is ready.
    await focusEditor();
    await page.keyboard.insertText(TYPED);
    const ghost = await ghostText();
    await page.screenshot({ path: path.join(ARTIFACTS_DIR, 'ghost-text.png') });
    expect(ghost).toBe(expected.completion);

    await page.keyboard.press('Tab');
    await page.locator('.ghost-text-decoration').first().waitFor({ state: 'detached', timeout: 10_000 });
    await page.waitForTimeout(500);
    await page.keyboard.press('Control+S');
    const wanted = original + TYPED + expected.completion;
    const saved = await fileBecomes((text) => text === wanted);
    await page.screenshot({ path: path.join(ARTIFACTS_DIR, 'accepted.png') });
    expect(saved).toBe(wanted);
  }, 240_000);

  test('"Why This Completion?" shows that completion\'s trace', async () => {
    await runCommand('RepoShapley: Why This Completion?');
    const trace = page.locator('.monaco-editor .view-lines:has-text("Why this completion?")').first();
    await trace.waitFor({ timeout: 30_000 });
    const text = normalize((await trace.textContent()) ?? '');
    await page.screenshot({ path: path.join(ARTIFACTS_DIR, 'trace.png') });
    expect(text).toContain('```python' + expected.completion + '```');
    expect(text).toContain('Policy `none`');
  }, 120_000);

  test('a crashed server shows one message, and "Restart Server" brings completions back', async () => {
    const servers = processesWith(`${dirs.extensionsDir}${path.sep}`).filter((pid) => readCmdline(pid).includes('main.js'));
    expect(servers).toHaveLength(1);
    process.kill(servers[0]!, 'SIGKILL');
    await statusIs('stopped', 30_000);
    const toast = page.locator('.notification-toast .notification-list-item-message:has-text("stopped unexpectedly")');
    await toast.first().waitFor({ timeout: 30_000 });
    await page.waitForTimeout(500); // let the toast settle for the screenshot
    await page.screenshot({ path: path.join(ARTIFACTS_DIR, 'crash-message.png') });
    expect(await toast.count()).toBe(1);
    expect(normalize((await toast.first().textContent()) ?? '')).toContain('killed by SIGKILL');

    await runCommand('RepoShapley: Restart Server');
    await statusIs('ready', 120_000);
    // Back to the typed prefix (undo the accepted completion), then retype its last character.
    await focusEditor();
    await page.keyboard.press('Control+Z');
    await page.keyboard.press('Backspace');
    await page.keyboard.type(TYPED.slice(-1));
    expect(await ghostText()).toBe(expected.completion);
    await page.keyboard.press('Escape');
  }, 240_000);

  test('"Toggle Completions" turns completions off and on (reposhapley.enabled)', async () => {
    const userSettings = path.join(dirs.userDataDir, 'User', 'settings.json');
    await runCommand('RepoShapley: Toggle Completions');
    await statusIs('disabled', 30_000);
    expect(JSON.parse(readFileSync(userSettings, 'utf8'))['reposhapley.enabled']).toBe(false);
    await runCommand('RepoShapley: Toggle Completions');
    await statusIs('ready', 30_000);
    expect(JSON.parse(readFileSync(userSettings, 'utf8'))['reposhapley.enabled']).toBe(true);
  }, 120_000);

  test('a model that cannot be loaded shows one message with the fix', async () => {
    const missing = path.join(tmp, 'no-such-model.gguf');
    writeWorkspaceSettings({ 'reposhapley.modelPath': missing, 'reposhapley.threads': 1 });
    await statusIs('no model', 60_000);
    const toast = page.locator(`.notification-toast .notification-list-item-message:has-text("${path.basename(missing)}")`);
    await toast.first().waitFor({ timeout: 30_000 });
    await page.waitForTimeout(500); // let the toast settle for the screenshot
    await page.screenshot({ path: path.join(ARTIFACTS_DIR, 'no-model-message.png') });
    expect(await toast.count()).toBe(1);
  }, 120_000);

  // Runs where the default model was pulled (CI's README command pulls it); the ghost text is the
  // real model's, and its screenshot is the README's (copied to docs/images/ by hand).
  // Asked only when the suite runs: the check spawns the CLI, and `npm test` collects this file too.
  test.skipIf(SKIP !== undefined || !hasDefaultModel(USER_MODEL_CACHE))('with the default model pulled: its completion as ghost text (the README\'s screenshot)', async () => {
    // main.py back as the fixture has it, on disk and in its editor, so the server retrieves from
    // what the CLI's copy of the fixture holds.
    writeFileSync(path.join(workspace, FILE), original);
    await focusEditor();
    await runCommand('File: Revert File');
    const probe = path.join(tmp, 'demo-probe');
    cpSync(E2E_WORKSPACE_FIXTURE, probe, { recursive: true });
    writeFileSync(path.join(probe, DEMO_FILE), DEMO_TEXT + DEMO_TYPED);
    const wanted = defaultModelCompletion(probe, DEMO_FILE, USER_MODEL_CACHE, 2);
    writeWorkspaceSettings({ 'reposhapley.modelPath': '', 'reposhapley.modelCacheDir': USER_MODEL_CACHE, 'reposhapley.policy': 'auto', 'reposhapley.threads': 2 });
    await statusIs('ready', 120_000);
    // A clean window for the picture: the earlier tests' messages and the trace view closed.
    await runCommand('Notifications: Clear All Notifications');
    await runCommand('View: Close All Editor Groups');
    await focusEditor(DEMO_FILE);
    await page.keyboard.insertText(DEMO_TYPED);
    expect(await ghostText()).toBe(wanted);
    await page.screenshot({ path: path.join(ARTIFACTS_DIR, 'default-model-ghost-text.png') });
  }, 300_000);

  // Last: switching to main.py from these files' editors is unreliable in code-server's quick open.
  test.each(OTHER_LANGUAGES.map((c, i) => ({ ...c, index: i })))('$file: the same ghost text and Tab in another language', async ({ file, typed, index }) => {
    // The tiny model and policy of the first tests again (the tests before changed them): through
    // a missing model first, so "ready" is the tiny model's and not the one before.
    writeWorkspaceSettings({ 'reposhapley.modelPath': path.join(tmp, `missing-${index}.gguf`), 'reposhapley.threads': 1 });
    await statusIs('no model', 60_000);
    writeWorkspaceSettings({ 'reposhapley.modelPath': expected.modelPath, 'reposhapley.threads': 1 });
    await statusIs('ready', 120_000);
    await focusEditor(file);
    await page.keyboard.insertText(typed);
    expect(await ghostText()).toBe(otherCompletions[index]);
    await page.keyboard.press('Tab');
    await page.locator('.ghost-text-decoration').first().waitFor({ state: 'detached', timeout: 10_000 });
    await page.waitForTimeout(500);
    await page.keyboard.press('Control+S');
    const wanted = readFileSync(path.join(E2E_WORKSPACE_FIXTURE, file), 'utf8') + typed + otherCompletions[index];
    expect(await fileBecomes((text) => text === wanted, file)).toBe(wanted);
  }, 240_000);

  function writeWorkspaceSettings(settings: Record<string, unknown>): void {
    const file = path.join(workspace, SETTINGS);
    const fixture = JSON.parse(readFileSync(path.join(E2E_WORKSPACE_FIXTURE, SETTINGS), 'utf8')) as Record<string, unknown>;
    writeFileSync(file, `${JSON.stringify({ ...fixture, ...settings }, null, 2)}\n`);
  }

  /** Runs a command from the palette (F1); `input` answers the quick pick it opens, if any. */
  async function runCommand(title: string, input?: string): Promise<void> {
    await page.keyboard.press(input ? 'Control+P' : 'F1');
    await page.locator('.quick-input-widget').waitFor({ timeout: 15_000 });
    await page.keyboard.type(input ?? title);
    await page.locator(`.quick-input-list .monaco-list-row:has-text("${input ?? title.replace(/^.*?: /, '')}")`).first().waitFor({ timeout: 15_000 });
    await page.keyboard.press('Enter');
  }

  async function statusIs(state: string, timeout: number): Promise<void> {
    await page.locator(`.statusbar-item[aria-label="RepoShapley: ${state}"]`).waitFor({ timeout });
  }

  /**
   * Focuses `file`'s editor (the trace may be open beside it) at the end of the file, and waits
   * until the focused editor is that file's: keys typed before that go wherever focus was.
   */
  async function focusEditor(file = FILE): Promise<void> {
    await openFromQuickOpen(file);
    await page.locator('.editor-instance .monaco-editor.focused').first().waitFor({ timeout: 15_000 });
    // The cursor must be on the last line before typing: a Control+End that lands while the editor
    // restores its view state is lost, and the text would go to the top of the file.
    const lastLine = readFileSync(path.join(workspace, file), 'utf8').split('\n').length;
    const atLastLine = page.locator(`.statusbar-item:has-text("Ln ${lastLine},")`).first();
    for (let attempt = 1; ; attempt++) {
      await page.keyboard.press('Control+End');
      try {
        await atLastLine.waitFor({ timeout: 3_000 });
        return;
      } catch (error) {
        if (attempt === 3) throw new Error(`the cursor did not reach line ${lastLine} of ${file}; ${await screenState()}`, { cause: error });
      }
    }
  }

  /**
   * Opens `file` with Go to File until its tab is the active one: the quick open's first row is
   * now and then another file than the one typed (seen after switching between languages' files).
   */
  async function openFromQuickOpen(file: string): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      await runCommand('Go to File...', file);
      await page.locator('.quick-input-widget').waitFor({ state: 'hidden', timeout: 15_000 });
      try {
        await page.locator(`.tab.active[data-resource-name="${file}"]`).first().waitFor({ timeout: 5_000 });
        return;
      } catch (error) {
        if (attempt === 3) throw new Error(`${file} did not become the active editor; ${await screenState()}`, { cause: error });
      }
    }
  }

  /**
   * The ghost text once it shows (spaces render as no-break spaces). When none shows, the error
   * says where focus was and what the screen showed: CI keeps the log, not the screenshots.
   */
  async function ghostText(): Promise<string> {
    const ghost = page.locator('.ghost-text-decoration').first();
    try {
      await ghost.waitFor({ timeout: 60_000 });
    } catch (error) {
      await page.screenshot({ path: path.join(ARTIFACTS_DIR, 'no-ghost-text.png') }).catch(() => {});
      throw new Error(`no ghost text in 60 s; ${await screenState()}`, { cause: error });
    }
    return normalize((await ghost.textContent()) ?? '');
  }

  async function screenState(): Promise<string> {
    const text = async (selector: string): Promise<string> =>
      normalize((await page.locator(selector).first().textContent({ timeout: 2_000 }).catch(() => null)) ?? '(none)');
    return [
      `focused editor: ${JSON.stringify(await text('.editor-instance .monaco-editor.focused .view-lines'))}`,
      `active tab: ${JSON.stringify(await text('.tab.active'))}`,
      `status: ${JSON.stringify(await page.locator('.statusbar-item[aria-label^="RepoShapley"]').first().getAttribute('aria-label', { timeout: 2_000 }).catch(() => null))}`,
      `notification: ${JSON.stringify(await text('.notification-toast .notification-list-item-message'))}`,
    ].join('; ');
  }

  async function fileBecomes(accept: (text: string) => boolean, file = FILE): Promise<string> {
    const deadline = Date.now() + 10_000;
    for (;;) {
      const text = readFileSync(path.join(workspace, file), 'utf8');
      if (accept(text) || Date.now() > deadline) return text;
      await page.waitForTimeout(100);
    }
  }
});

function normalize(text: string): string {
  return text.replace(/\u00a0/g, ' ');
}

function readCmdline(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    return '';
  }
}
