/**
 * client-vscode/package.json `contributes.configuration` against the one schema
 * (shared/settings.ts): the same settings, types, defaults, choices and ranges.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { isValidSetting, SETTING_KEYS, settingSpec, type AnySettingSpec, type SettingKey } from '../../shared/settings.js';
import { SECTION, toGpuLayers } from './configuration.js';

/** The fields of a contributed setting the schema decides. */
interface Contribution {
  type: string | string[];
  default: unknown;
  minimum?: number;
  maximum?: number;
  enum?: string[];
  pattern?: string;
  description?: string;
  markdownDescription?: string;
}

const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
  contributes: { configuration: { properties: Record<string, Contribution> } };
};
const contributed = manifest.contributes.configuration.properties;

/** Settings only the client reads; they are not in the schema and never reach the server. */
const CLIENT_ONLY = ['serverPath'];
/**
 * Schema settings VS Code does not offer: the retrieval window (RepoShapley A.4, tuned with the
 * model) and a debugging switch for the bench. settings.json still reaches them.
 */
const SERVER_ONLY: readonly SettingKey[] = ['windowLines', 'windowStride', 'tracePrompt', 'layout'];

const contributedKeys = SETTING_KEYS.filter((key) => !SERVER_ONLY.includes(key));

function contribution(key: string): Contribution | undefined {
  return contributed[`${SECTION}.${key}`];
}

/** The fields package.json must have for a schema entry (enums compared as sets: the UI orders them). */
function expectedFields(spec: AnySettingSpec): Partial<Contribution> {
  if (spec.type === 'boolean') return { type: 'boolean', default: spec.default };
  if (spec.type === 'string') return { type: 'string', default: spec.default, enum: spec.enum ? [...spec.enum].sort() : undefined };
  // 'auto' or a number is a string in VS Code, so its Settings UI can edit it; its pattern is checked below.
  if (spec.auto) return { type: 'string', default: String(spec.default) };
  return { type: spec.nullable ? [spec.type, 'null'] : spec.type, default: spec.default, minimum: spec.min, maximum: spec.max };
}

function actualFields(setting: Contribution): Partial<Contribution> {
  const { type, default: value, minimum, maximum } = setting;
  return { type, default: value, minimum, maximum, enum: setting.enum ? [...setting.enum].sort() : undefined };
}

describe('package.json contributes the schema', () => {
  test('every schema setting is contributed except the server-only ones, which are not', () => {
    for (const key of contributedKeys) expect(contribution(key), `${SECTION}.${key} is not contributed`).toBeDefined();
    for (const key of SERVER_ONLY) expect(contribution(key), `${SECTION}.${key} is contributed but listed server-only`).toBeUndefined();
  });

  test('every contributed setting is in the schema or client-only', () => {
    const known = new Set<string>([...SETTING_KEYS, ...CLIENT_ONLY]);
    for (const name of Object.keys(contributed)) {
      expect(name.startsWith(`${SECTION}.`), name).toBe(true);
      expect(known.has(name.slice(SECTION.length + 1)), `${name} is unknown to shared/settings.ts`).toBe(true);
    }
  });

  test.each(contributedKeys)('%s: type, default, enum, minimum and maximum as in the schema', (key) => {
    const setting = contribution(key);
    expect(setting).toBeDefined();
    expect(actualFields(setting!)).toEqual(expectedFields(settingSpec(key)));
    expect(setting!.description ?? setting!.markdownDescription, 'a description').toBeTruthy();
  });

  test.each(contributedKeys.filter((key) => (settingSpec(key) as { auto?: boolean }).auto === true))(
    '%s: the pattern admits what the schema admits', (key) => {
      const spec = settingSpec(key) as Extract<AnySettingSpec, { min: number }>;
      const pattern = new RegExp(contribution(key)!.pattern!);
      const samples = ['auto', String(spec.min), String(spec.max), String(spec.max + 1), String(spec.min - 1), '1.5', 'x', ''];
      for (const sample of samples) expect(pattern.test(sample), sample).toBe(isValidSetting(key, toGpuLayers(sample)));
    },
  );
});
