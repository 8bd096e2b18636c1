/**
 * Resolves a JavaScript or TypeScript module specifier to a workspace file, without an editor
 * or a compiler, from the indexed relPaths and a few project files:
 *
 * - relative specifiers (`./x`, `../y/z.js`, `.`) from the importing file's directory, with
 *   Node's and TypeScript's extensions and directory index files (moduleFiles.ts);
 * - bare specifiers through the nearest tsconfig.json/jsconfig.json `paths` and `baseUrl`;
 * - bare specifiers naming a workspace package (where the root's `workspaces` or
 *   pnpm-workspace.yaml put them, else `packages/<name>`; its package.json `name` must match),
 *   through its `exports`, `types`, `module`, `main`, or its index;
 * - `#` specifiers through the `imports` of the importing file's own package.json;
 * - an entry in build output (`dist/`, `build/`, `lib/`, `out/`, never indexed) is looked for
 *   under `src/`.
 *
 * Everything else (npm dependencies in node_modules, `node:` builtins, URLs) stays unresolved.
 * JavaScript has no modules that are names, so `nameTargets` are all undefined.
 */
import * as path from 'node:path';
import type { ImportRecord, ImportResolution, ImportingFile, WorkspaceFiles } from '../language.js';
import { extensionsFor, moduleFile, stripModuleExtension } from './moduleFiles.js';
import { exportTargets, importTargets, mappedModulePaths, nearestPathMapping, readManifest, type PackageManifest, type ReadProjectFile } from './projectConfig.js';
import { enclosingPackage, packageDirectories, workspacePackageGlobs } from './workspacePackages.js';

/** Build output directories a package.json entry may point into, and the sources they come from. */
const OUTPUT_DIRECTORY = /^(?:\.\/)?(?:dist|build|lib|out)\/(.*)$/;

/** Resolve one import record (its module only: names are never files in JavaScript). */
export function resolveImport(record: ImportRecord, from: ImportingFile, files: WorkspaceFiles): ImportResolution {
  const nameTargets = record.names.map(() => undefined);
  const resolvedPath = resolveSpecifier(record.module, from, files);
  return resolvedPath === undefined ? { nameTargets } : { resolvedPath, nameTargets };
}

/** The workspace file a specifier names, if it names one. */
export function resolveSpecifier(specifier: string, from: ImportingFile, files: WorkspaceFiles): string | undefined {
  const has = (relPath: string): boolean => files.has(relPath);
  const extensions = extensionsFor(from.relPath);
  if (isRelative(specifier)) {
    const directoryOnly = /(^|\/)\.\.?$|\/$/.test(specifier);
    return moduleFile(path.posix.join(path.posix.dirname(from.relPath), specifier), has, directoryOnly, extensions);
  }
  // Absolute paths, `node:fs`, `https://…`, `data:` are no workspace files.
  if (specifier.startsWith('/') || /^[a-z][a-z0-9+.-]*:/i.test(specifier)) return undefined;
  const read: ReadProjectFile = (relPath) => files.projectFile(from, relPath);
  if (specifier.startsWith('#')) return subpathImportFile(specifier, from.relPath, read, has);
  const mapping = nearestPathMapping(from.relPath, read);
  for (const modulePath of mapping ? mappedModulePaths(specifier, mapping) : []) {
    const file = moduleFile(modulePath, has, false, extensions);
    if (file !== undefined) return file;
  }
  return workspacePackageFile(specifier, read, has);
}

function isRelative(specifier: string): boolean {
  return specifier === '.' || specifier === '..' || specifier.startsWith('./') || specifier.startsWith('../');
}

/** `#name` through the `imports` of the importing file's package (targets inside it, or a workspace package). */
function subpathImportFile(specifier: string, fromRelPath: string, read: ReadProjectFile, has: (relPath: string) => boolean): string | undefined {
  const owner = enclosingPackage(fromRelPath, read);
  if (!owner) return undefined;
  for (const target of importTargets(owner.manifest.imports, specifier)) {
    const file = target.startsWith('./') ? packageEntryFile(owner.dir, target, has) : workspacePackageFile(target, read, has);
    if (file !== undefined) return file;
  }
  return undefined;
}

/** `pkg`, `pkg/sub`, `@scope/pkg/sub` in a workspace package directory whose package.json has that name. */
function workspacePackageFile(specifier: string, read: ReadProjectFile, has: (relPath: string) => boolean): string | undefined {
  const parts = specifier.split('/');
  const nameLength = specifier.startsWith('@') ? 2 : 1;
  if (parts.length < nameLength || parts.slice(0, nameLength).some((part) => part === '' || part === '.' || part === '..')) return undefined;
  const name = parts.slice(0, nameLength).join('/');
  const subpath = parts.slice(nameLength).join('/');
  for (const dir of packageDirectories(workspacePackageGlobs(read), parts[nameLength - 1]!)) {
    const manifest = readManifest(`${dir}/package.json`, read);
    const file = manifest?.name === name ? packageFile(dir, manifest, subpath, has) : undefined;
    if (file !== undefined) return file;
  }
  return undefined;
}

/** A subpath (`''` for the package itself) of the package in `dir`, through its entries. */
function packageFile(dir: string, manifest: PackageManifest, subpath: string, has: (relPath: string) => boolean): string | undefined {
  const entries = subpath === ''
    ? [...exportTargets(manifest.exports, '.'), ...manifest.entries, '.', 'src/index']
    : [...exportTargets(manifest.exports, `./${subpath}`), subpath, `src/${subpath}`];
  for (const entry of entries) {
    const file = packageEntryFile(dir, entry, has);
    if (file !== undefined) return file;
  }
  return undefined;
}

/** An entry of a package (relative to its directory, `''` for the root's), or the source of an entry in build output. */
function packageEntryFile(dir: string, entry: string, has: (relPath: string) => boolean): string | undefined {
  const target = path.posix.join(dir, entry);
  const inside = dir === '' ? target !== '..' && !target.startsWith('../') : target === dir || target.startsWith(`${dir}/`);
  if (!inside) return undefined; // `../x` leaves the package.
  const file = moduleFile(target, has, entry === '.' || entry === './');
  if (file !== undefined) return file;
  const output = OUTPUT_DIRECTORY.exec(entry);
  return output ? moduleFile(path.posix.join(dir, 'src', stripModuleExtension(output[1]!)), has) : undefined;
}
