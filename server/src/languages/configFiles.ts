/**
 * What import resolution shares in reading project files (package.json, tsconfig.json,
 * pnpm-workspace.yaml, Cargo.toml, go.mod): parses kept by text, since the same file is read for
 * every import below it; readers of parsed values that take any shape; and the YAML and TOML
 * parsers, which load with the first file that needs them.
 */
import { createRequire } from 'node:module';

/** Parsed files kept per parser; a workspace holds a few dozen project files at most. */
const MAX_KEPT = 64;

/** `parse`, remembering its result per text (the bound reached, everything kept is dropped). */
export function parsedByText<T>(parse: (text: string) => T): (text: string) => T {
  const kept = new Map<string, T>();
  return (text) => {
    if (kept.has(text)) return kept.get(text)!;
    if (kept.size >= MAX_KEPT) kept.clear();
    const value = parse(text);
    kept.set(text, value);
    return value;
  };
}

/** A table (a JSON object, a TOML table, a YAML mapping), or undefined for any other value. */
export function objectOf(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

/** The strings of an array; none for any other value. */
export function stringsOf(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}

/** The value when it is a string. */
export function stringOf(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/**
 * The parsers load on first use. Imported with the server, yaml and smol-toml added ~1 MB of heap
 * to every start, and the first index of a JavaScript set measured 13 % slower (10 alternating
 * runs, twice), in workspaces with no file for them.
 */
const load = createRequire(import.meta.url);
let yaml: typeof import('yaml') | undefined;
let toml: typeof import('smol-toml') | undefined;

/** A YAML file's value; undefined when malformed (a file being edited often is, for a moment). */
export const parseYaml = parsedByText((text): unknown => {
  const parser = (yaml ??= load('yaml') as typeof import('yaml'));
  return orUndefined(() => parser.parse(text) as unknown);
});

/** A TOML file's top table; undefined when malformed. */
export const parseToml = parsedByText((text): Record<string, unknown> | undefined => {
  const parser = (toml ??= load('smol-toml') as typeof import('smol-toml'));
  return orUndefined(() => parser.parse(text));
});

/** `parse()`, or undefined when it throws: a malformed file, or one nested past the parser's stack. */
export function orUndefined<T>(parse: () => T): T | undefined {
  try {
    return parse();
  } catch {
    return undefined;
  }
}
