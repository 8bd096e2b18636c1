/**
 * The languages the server completes, as editors and file names show them. Both sides read this
 * list: the VS Code client builds its document selector from it and the `languages` setting lists
 * its ids; the server's registry (server/src/languages/) holds how each one is parsed, imported
 * and completed. Adding a language: a line here and a folder there (its README says how).
 */

/** Registry ids, also the values of the `languages` setting. */
export const LANGUAGE_IDS = ['python', 'javascript', 'typescript', 'go', 'rust'] as const;

export type LanguageId = (typeof LANGUAGE_IDS)[number];

/** What an editor knows of a language: its language ids and the file name endings it owns. */
export interface EditorLanguage {
  id: LanguageId;
  /** How people write its name. */
  name: string;
  /** LSP `languageId`s (VS Code's names) of documents in this language. */
  editorIds: readonly string[];
  /** File name endings, with the dot, lower case. */
  extensions: readonly string[];
}

export const EDITOR_LANGUAGES: readonly EditorLanguage[] = [
  { id: 'python', name: 'Python', editorIds: ['python'], extensions: ['.py'] },
  { id: 'javascript', name: 'JavaScript', editorIds: ['javascript', 'javascriptreact'], extensions: ['.js', '.mjs', '.cjs', '.jsx'] },
  { id: 'typescript', name: 'TypeScript', editorIds: ['typescript', 'typescriptreact'], extensions: ['.ts', '.mts', '.cts', '.tsx'] },
  { id: 'go', name: 'Go', editorIds: ['go'], extensions: ['.go'] },
  { id: 'rust', name: 'Rust', editorIds: ['rust'], extensions: ['.rs'] },
];

/** The language of an LSP `languageId`, if the server completes it. */
export function languageOfEditorId(editorId: string): LanguageId | undefined {
  return EDITOR_LANGUAGES.find((language) => language.editorIds.includes(editorId))?.id;
}

/** The language a file name's ending says, if any (`.d.ts` is TypeScript too). */
export function languageOfFileName(fileName: string): LanguageId | undefined {
  const lower = fileName.toLowerCase();
  return EDITOR_LANGUAGES.find((language) => language.extensions.some((ext) => lower.endsWith(ext)))?.id;
}

/** Every editor `languageId` the server completes: the VS Code client's document selector. */
export const COMPLETED_EDITOR_IDS: readonly string[] = EDITOR_LANGUAGES.flatMap((language) => language.editorIds);
