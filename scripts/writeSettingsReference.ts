/** Writes docs/settings.md from the settings schema (`npm run docs:settings`). */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderSettingsReference } from '../shared/settingsReference.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const target = path.join(repoRoot, 'docs', 'settings.md');
writeFileSync(target, renderSettingsReference());
process.stderr.write(`wrote ${path.relative(repoRoot, target)}\n`);
