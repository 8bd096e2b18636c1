import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test } from 'vitest';
import { SETTING_KEYS } from './settings.js';
import { renderSettingsReference } from './settingsReference.js';

const page = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../docs/settings.md');

test('docs/settings.md is the schema as rendered now (run `npm run docs:settings` after changing shared/settings.ts)', () => {
  expect(readFileSync(page, 'utf8')).toBe(renderSettingsReference());
});

test('the page has one table row per setting, none split by a stray pipe', () => {
  const rows = renderSettingsReference().split('\n').filter((line) => /^\| `/.test(line));
  expect(rows.map((row) => /^\| `([^`]+)`/.exec(row)?.[1])).toEqual(SETTING_KEYS);
  for (const row of rows) expect(row.replace(/\\\|/g, '').split('|')).toHaveLength(6);
});
