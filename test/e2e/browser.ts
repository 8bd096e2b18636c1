/**
 * Headless Chromium (Debian's) driven by playwright-core, which client-vscode/ installs as a dev
 * dependency (the root package has no browser tooling). Only the few Playwright calls the tests
 * use are typed here, so the root TypeScript build needs no Playwright types.
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { CHROMIUM, CLIENT_DIR } from './e2eEnv.js';

export interface E2eLocator {
  first(): E2eLocator;
  count(): Promise<number>;
  textContent(options?: { timeout?: number }): Promise<string | null>;
  getAttribute(name: string, options?: { timeout?: number }): Promise<string | null>;
  waitFor(options?: { state?: 'attached' | 'detached' | 'visible' | 'hidden'; timeout?: number }): Promise<void>;
  click(options?: { timeout?: number }): Promise<void>;
}

export interface E2ePage {
  goto(url: string, options?: { timeout?: number }): Promise<unknown>;
  locator(selector: string): E2eLocator;
  keyboard: {
    press(key: string): Promise<void>;
    type(text: string, options?: { delay?: number }): Promise<void>;
    insertText(text: string): Promise<void>;
  };
  screenshot(options: { path: string }): Promise<unknown>;
  waitForTimeout(ms: number): Promise<void>;
}

export interface E2eBrowser {
  newPage(options?: { viewport?: { width: number; height: number } }): Promise<E2ePage>;
  close(): Promise<void>;
}

interface PlaywrightCore {
  chromium: { launch(options: { executablePath: string; headless: boolean; args: string[] }): Promise<E2eBrowser> };
}

/** Flags from install-code-server.sh: no sandbox (root), no GPU, no network chatter. */
const CHROMIUM_ARGS = [
  '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
  '--disable-component-update', '--disable-sync',
];

/** Launches Debian's Chromium headless. */
export async function launchChromium(): Promise<E2eBrowser> {
  const require = createRequire(path.join(CLIENT_DIR, 'package.json'));
  let entry: string;
  try {
    entry = require.resolve('playwright-core');
  } catch (error) {
    throw new Error('playwright-core is not installed: run `npm --prefix client-vscode ci`', { cause: error });
  }
  const playwright = (await import(pathToFileURL(entry).href)) as PlaywrightCore & { default?: PlaywrightCore };
  const chromium = (playwright.default ?? playwright).chromium;
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
}
