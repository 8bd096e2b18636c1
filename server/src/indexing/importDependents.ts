/**
 * Which files' imports a file appearing or disappearing can change, so the index re-resolves
 * those and not every import of the workspace (a storm of 200 created files in a 2,000-file
 * workspace took 45 s when each re-resolved everything, issue 22).
 *
 * An import can only resolve to a file whose name (without `.py`) is its module's last part or
 * the last part of a name it imports (`from a.b import c` looks for `b.py` and `c.py`, or those
 * packages' `__init__.py`). So importers are filed under those keys, and a file `x/foo.py`
 * touches the importers filed under `foo`. An `__init__.py` changes which directories are
 * packages, which moves the search bases of every file below it: it returns undefined, "all".
 */
import type { FileIndex } from './types.js';

export class ImportDependents {
  private readonly importersByKey = new Map<string, Set<string>>();
  private readonly keysByImporter = new Map<string, string[]>();

  /** Files the imports of `file` are filed under (replacing what it had). */
  update(file: FileIndex): void {
    this.delete(file.relPath);
    const keys = [...new Set(file.imports.flatMap((record) => [
      lastPart(record.module), ...record.names.filter((n) => n.name !== '*').map((n) => lastPart(n.name)),
    ]).filter((key) => key !== ''))];
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
   * undefined when any of them is an `__init__.py` (then every import may move).
   */
  affectedBy(relPaths: Iterable<string>): Set<string> | undefined {
    const affected = new Set<string>();
    for (const relPath of relPaths) {
      const name = relPath.slice(relPath.lastIndexOf('/') + 1);
      if (name === '__init__.py') return undefined;
      for (const importer of this.importersByKey.get(name.replace(/\.py$/, '')) ?? []) affected.add(importer);
    }
    return affected;
  }
}

/** `a.b.c` -> `c`; `..util` -> `util`; `.` -> ''. */
function lastPart(dotted: string): string {
  return dotted.slice(dotted.lastIndexOf('.') + 1);
}
