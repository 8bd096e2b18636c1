/**
 * One temporary folder per test run: vitest.config.ts points TMPDIR at it for every test and the
 * processes they spawn, and globalSetup's teardown removes it. Tests make their scratch folders
 * with os.tmpdir(); without this, every run left hundreds of them (model stores of ~13 MB each)
 * in the user's /tmp, and a test that failed before its own cleanup left its folder forever.
 */
import { chmodSync, mkdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** Named by vitest's main process (where the config and the teardown run), so runs side by side keep apart. */
export const TEST_TMP_DIR = path.join(os.tmpdir(), `reposhapley-tests-tmp-${process.pid}`);

/**
 * Made with /tmp's own permissions (sticky, open to all): some tests run the server as another
 * user (nobody), which must reach its scratch folders and make its own, as it can in /tmp.
 */
export function makeTestTempDir(): void {
  mkdirSync(TEST_TMP_DIR, { recursive: true });
  chmodSync(TEST_TMP_DIR, 0o1777);
}

export function removeTestTempDir(): void {
  rmSync(TEST_TMP_DIR, { recursive: true, force: true });
}
