/**
 * Workspace-wide name lookups kept up to date file by file: definitions by simple name and the
 * files that reference a name. Replacing one file touches only the names it had or has.
 */
import type { Definition, FileIndex } from './types.js';

function byLocation(a: Definition, b: Definition): number {
  return a.relPath < b.relPath ? -1 : a.relPath > b.relPath ? 1 : a.startLine - b.startLine;
}

const NONE: readonly Definition[] = Object.freeze([]);

/** definitionsByName and referencesByName of the index. */
export class SymbolTables {
  /** Arrays are replaced, never mutated, so a caller's result stays a consistent snapshot. */
  private readonly definitionsByName = new Map<string, readonly Definition[]>();
  private readonly referencingFiles = new Map<string, Set<string>>();
  private definitionCount = 0;

  /** Swap one file's entries: `before` is what was indexed, `after` what replaces it (either may be absent). */
  replace(before: FileIndex | undefined, after: FileIndex | undefined): void {
    this.replaceReferences(before, after);
    const relPath = (after ?? before)?.relPath;
    if (relPath === undefined) return;
    const removed = groupByName(before?.definitions ?? []);
    const added = groupByName(after?.definitions ?? []);
    for (const name of new Set([...removed.keys(), ...added.keys()])) {
      // An open buffer's unchanged statements keep their Definition objects: nothing to do.
      if (!sameObjects(removed.get(name), added.get(name))) this.replaceDefinitions(name, relPath, added.get(name) ?? []);
    }
  }

  /** Definitions with this simple name, ordered by (relPath, startLine). */
  definitionsNamed(name: string): readonly Definition[] {
    return this.definitionsByName.get(name) ?? NONE;
  }

  /** relPaths of files that reference `name`, sorted. */
  filesReferencing(name: string): string[] {
    return [...(this.referencingFiles.get(name) ?? [])].sort();
  }

  /** Sizes, for stats. */
  counts(): { definitions: number; definedNames: number; referencedNames: number } {
    return { definitions: this.definitionCount, definedNames: this.definitionsByName.size, referencedNames: this.referencingFiles.size };
  }

  private replaceDefinitions(name: string, relPath: string, added: Definition[]): void {
    const current = this.definitionsByName.get(name) ?? NONE;
    const kept = current.filter((d) => d.relPath !== relPath);
    this.definitionCount += kept.length + added.length - current.length;
    if (kept.length + added.length === 0) this.definitionsByName.delete(name);
    else this.definitionsByName.set(name, added.length === 0 ? kept : [...kept, ...added].sort(byLocation));
  }

  /** Only names that appear or disappear touch the table; most edits change neither. */
  private replaceReferences(before: FileIndex | undefined, after: FileIndex | undefined): void {
    const relPath = (after ?? before)?.relPath;
    if (relPath === undefined) return;
    for (const name of before?.references.keys() ?? []) {
      if (after?.references.has(name)) continue;
      const files = this.referencingFiles.get(name);
      files?.delete(relPath);
      if (files?.size === 0) this.referencingFiles.delete(name);
    }
    for (const name of after?.references.keys() ?? []) {
      if (before?.references.has(name)) continue;
      let files = this.referencingFiles.get(name);
      if (!files) this.referencingFiles.set(name, (files = new Set()));
      files.add(relPath);
    }
  }
}

function sameObjects(a: readonly Definition[] | undefined, b: readonly Definition[] | undefined): boolean {
  if (!a || !b || a.length !== b.length) return false;
  return a.every((d, i) => d === b[i]);
}

function groupByName(definitions: readonly Definition[]): Map<string, Definition[]> {
  const groups = new Map<string, Definition[]>();
  for (const d of definitions) {
    const group = groups.get(d.name);
    if (group) group.push(d);
    else groups.set(d.name, [d]);
  }
  return groups;
}
