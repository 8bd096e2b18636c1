/**
 * Keeps the latest benchmark table in docs/bench-latest.md: the text between two markers is
 * replaced, everything else on the page is left as it is.
 */
import { readFile, writeFile } from 'node:fs/promises';

export const SECTION_START = '<!-- bench:latest:start -->';
export const SECTION_END = '<!-- bench:latest:end -->';

/** `doc` with the marked section replaced by `section`; appended with its markers when absent. */
export function replaceSection(doc: string, section: string): string {
  const block = `${SECTION_START}\n${section.trim()}\n${SECTION_END}`;
  const start = doc.indexOf(SECTION_START);
  const end = doc.indexOf(SECTION_END);
  if (start < 0 || end < start) return `${doc.trimEnd()}\n\n${block}\n`;
  return doc.slice(0, start) + block + doc.slice(end + SECTION_END.length);
}

/** Rewrites the marked section of the file at `docPath`. */
export async function updateDocSection(docPath: string, section: string): Promise<void> {
  const doc = await readFile(docPath, 'utf8');
  await writeFile(docPath, replaceSection(doc, section));
}
