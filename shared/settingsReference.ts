/**
 * The settings reference page (docs/settings.md), rendered from {@link SETTINGS_SCHEMA}: one line
 * per setting. `npm run docs:settings` writes it; a test fails when the page and the schema differ.
 */
import { SETTING_KEYS, settingSpec, type AnySettingSpec } from './settings.js';

const HEADER = `# Settings reference

Every setting of the server, generated from [\`shared/settings.ts\`](../shared/settings.ts) (the one
schema: the server, the VS Code client and this page follow it). Do not edit this page by hand: run
\`npm run docs:settings\`; \`npm test\` fails while the two differ.

Editors send settings as \`initializationOptions\` or through \`workspace/didChangeConfiguration\`
(section \`reposhapley\`); in VS Code they are \`reposhapley.<setting>\`. An invalid value (wrong
type, outside the range, not one of the choices) is ignored and the previous value kept.

| setting | default | allowed | what it does |
|---|---|---|---|
`;

const FOOTER = `
When the budgets and \`maxTokens\` together exceed the model's context, the budgets are shrunk in
proportion to fit. A completion request may carry \`"reposhapley": {"mode": "line" | "block"}\` to ask
for one line or a block; without it the server decides from the cursor (a block only on a blank
line that opens one).
`;

/** The whole page, as docs/settings.md holds it. */
export function renderSettingsReference(): string {
  const rows = SETTING_KEYS.map((key) => {
    const spec = settingSpec(key);
    return `| \`${key}\` | \`${JSON.stringify(spec.default)}\` | ${allowedValues(spec)} | ${cell(spec.description)} |`;
  });
  return HEADER + rows.join('\n') + '\n' + FOOTER;
}

function allowedValues(spec: AnySettingSpec): string {
  if (spec.type === 'boolean') return '`true`, `false`';
  if (spec.type === 'string') return spec.enum ? spec.enum.map((value) => `\`${value}\``).join(', ') : 'text';
  const range = `${spec.type === 'integer' ? 'integer' : 'number'} ${spec.min}–${spec.max}`;
  return [range, spec.nullable ? '`null`' : '', spec.auto ? '`"auto"`' : ''].filter(Boolean).join(', ');
}

/** A description as one table cell: pipes escaped so they do not split the cell. */
function cell(text: string): string {
  return text.replace(/\|/g, '\\|');
}
