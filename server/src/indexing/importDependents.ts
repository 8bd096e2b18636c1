/**
 * Which files' imports a file appearing or disappearing can change, so the index re-resolves
 * those and not every import of the workspace (a storm of 200 created files in a 2,000-file
 * workspace took 45 s when each re-resolved everything, issue 22).
 *
 * Each language says under which keys an import could find its target (`dependencyKeys`, e.g.
 * the last part of a Python module) and what a file's key is (`keyOfFile`): importers are filed
 * under their keys, and a file touches the importers filed under its own. A file whose coming or
 * going can move any import (Python's `__init__.py`) makes `affectedBy` return undefined, "all".
 */
import { languageOfPath } from '../languages/registry.js';
import type { FileIndex } from './types.js';

export class ImportDependents {
  private readonly importersByKey = new Map<string, Set<string>>();
  private readonly keysByImporter = new Map<string, string[]>();

  /** Files the imports of `file` are filed under (replacing what it had). */
  update(file: FileIndex): void {
    this.delete(file.relPath);
    const rules = languageOfPath(file.relPath)?.imports;
    if (!rules) return;
    const keys = [...new Set(file.imports.flatMap((record) => rules.dependencyKeys(record)).filter((key) => key !== ''))];
    this.keysByImporter.set(file.relPath, keys);
    for (const key of keys) {
      let importers = this.importersByKey.get(key);
      if (!importers) this.importersByKey.set(key, (importers = new Set()));
      importers.add(file.relPath);
    }
  }

  delete(relPath: string): void {
    for (const key of this.keysByImporter.get(relPath) ?? []) {
      const importers = this.importersByKey.get(key);
      importers?.delete(relPath);
      if (importers?.size === 0) this.importersByKey.delete(key);
    }
    this.keysByImporter.delete(relPath);
  }

  /**
   * The importers whose resolution the appearance or disappearance of `relPaths` can change;
   * undefined when any of them can move every import.
   */
  affectedBy(relPaths: Iterable<string>): Set<string> | undefined {
    const affected = new Set<string>();
    for (const relPath of relPaths) {
      const key = languageOfPath(relPath)?.imports.keyOfFile(relPath);
      if (key === undefined) continue;
      if (key === 'everything') return undefined;
      for (const importer of this.importersByKey.get(key) ?? []) affected.add(importer);
    }
    return affected;
  }
}
