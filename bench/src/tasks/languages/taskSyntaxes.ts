/**
 * The task syntax of each registered language, and of a file. Adding a language to the bench:
 * a `<name>Tasks.ts` beside these and one line here (the table's type makes a missing one an error).
 */
import type { LanguageId } from '../../../../server/src/languages/language.js';
import { languageOfPath } from '../../../../server/src/languages/registry.js';
import { goTasks } from './goTasks.js';
import { pythonTasks } from './pythonTasks.js';
import { rustTasks } from './rustTasks.js';
import { scriptTasks } from './scriptTasks.js';
import type { TaskSyntax } from './taskSyntax.js';

const SYNTAXES: Readonly<Record<LanguageId, TaskSyntax>> = {
  python: pythonTasks, go: goTasks, rust: rustTasks, javascript: scriptTasks, typescript: scriptTasks,
};

/** The task syntax of a language. */
export function taskSyntaxOf(language: LanguageId): TaskSyntax {
  return SYNTAXES[language];
}

/** The task syntax of the file at `relPath`, if a registered language owns it. */
export function taskSyntaxOfPath(relPath: string): TaskSyntax | undefined {
  const language = languageOfPath(relPath);
  return language && SYNTAXES[language.id];
}
