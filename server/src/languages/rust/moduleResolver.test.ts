import { describe, expect, test } from 'vitest';
import type { ImportingFile, ImportRecord, WorkspaceFiles } from '../language.js';
import { libraryName, pathDependencies, workspaceMembers } from './cargoWorkspace.js';
import { crateRootOf, parentModule } from './moduleFiles.js';
import { resolveModulePath } from './moduleResolver.js';
import rust from './rust.js';

/** A Cargo workspace: an application, a library with nested modules, a tool whose library is renamed. */
const SOURCES = [
  'crates/app/src/main.rs',
  'crates/app/src/cli.rs',
  'crates/app/src/cli/args.rs',
  'crates/app/src/bin/migrate.rs',
  'crates/app/src/bin/plan.rs',
  'crates/app/src/bin/report/main.rs',
  'crates/app/src/bin/report/render.rs',
  'crates/my-core/src/lib.rs',
  'crates/my-core/src/config.rs',
  'crates/my-core/src/net/mod.rs',
  'crates/my-core/src/net/tcp.rs',
  'crates/my-core/src/net/udp.rs',
  'crates/my-core/src/store.rs',
  'crates/my-core/src/store/cache.rs',
  'crates/my-core/tests/integration.rs',
  'crates/my-core/tests/common/mod.rs',
  'tools/gen/src/lib.rs',
  'tools/gen/src/emit.rs',
];

const MANIFESTS: Record<string, string> = {
  'Cargo.toml': '[workspace]\nresolver = "2"\nmembers = [\n  "crates/*",   # every crate\n  "tools/gen",\n]\n\n[workspace.package]\nedition = "2021"\n',
  'crates/app/Cargo.toml': '[package]\nname = "app"\nversion = "0.1.0"\n\n[[bin]]\nname = "migrate"\npath = "src/bin/migrate.rs"\n\n[dependencies]\nmy-core = { path = "../my-core" }\n',
  'crates/my-core/Cargo.toml': '[package]\nname = "my-core"\nversion.workspace = true\n\n[dependencies]\nserde = "1"\n',
  'tools/gen/Cargo.toml': '[package]\nname = "codegen"\n\n[lib]\nname = "gen_lib"\npath = "src/lib.rs"\n',
};

function workspace(sources: readonly string[], manifests: Record<string, string>): WorkspaceFiles {
  const known = new Set(sources);
  return {
    has: (relPath) => known.has(relPath),
    inDirectory: (dir) => sources.filter((s) => s.slice(0, Math.max(0, s.lastIndexOf('/'))) === dir).sort(),
    projectFile: (_from, relPath) => manifests[relPath],
  };
}

const files = workspace(SOURCES, MANIFESTS);
const from = (relPath: string): ImportingFile => ({ relPath, absPath: `/ws/${relPath}` });
const record = (module: string, ...names: string[]): ImportRecord => ({ module, names: names.map((name) => ({ name })), line: 0 });
const CORE = 'crates/my-core/src';

describe('resolveModulePath', () => {
  test.each([
    { name: 'mod x; beside lib.rs', file: `${CORE}/lib.rs`, imp: record('self::config'), resolved: `${CORE}/config.rs` },
    { name: 'mod x; as a directory module', file: `${CORE}/lib.rs`, imp: record('self::net'), resolved: `${CORE}/net/mod.rs` },
    { name: 'mod x; in mod.rs', file: `${CORE}/net/mod.rs`, imp: record('self::tcp'), resolved: `${CORE}/net/tcp.rs` },
    { name: 'mod x; in a.rs looks in a/', file: `${CORE}/store.rs`, imp: record('self::cache'), resolved: `${CORE}/store/cache.rs` },
    { name: 'mod x; without a file', file: `${CORE}/lib.rs`, imp: record('self::missing'), resolved: undefined },
    { name: 'crate path to an item', file: `${CORE}/store/cache.rs`, imp: record('crate::net::tcp', 'TcpConn'), resolved: `${CORE}/net/tcp.rs`, names: [undefined] },
    { name: 'names that are modules', file: `${CORE}/config.rs`, imp: record('crate::net', 'tcp', 'Packet', '*'), resolved: `${CORE}/net/mod.rs`, names: [`${CORE}/net/tcp.rs`, undefined, undefined] },
    { name: 'an item of the crate root', file: `${CORE}/config.rs`, imp: record('crate', 'Error', 'store'), resolved: `${CORE}/lib.rs`, names: [undefined, `${CORE}/store.rs`] },
    { name: 'an inline module: the last file is the target', file: `${CORE}/lib.rs`, imp: record('crate::net::tcp::inner', 'Deep'), resolved: `${CORE}/net/tcp.rs`, names: [undefined] },
    { name: 'super from a.rs/x.rs', file: `${CORE}/store/cache.rs`, imp: record('super', 'Store'), resolved: `${CORE}/store.rs` },
    { name: 'super from x/mod.rs is the root', file: `${CORE}/net/mod.rs`, imp: record('super', 'Error'), resolved: `${CORE}/lib.rs` },
    { name: 'super::super then down', file: `${CORE}/net/tcp.rs`, imp: record('super::super::config', 'Config'), resolved: `${CORE}/config.rs` },
    { name: 'super sibling', file: `${CORE}/net/tcp.rs`, imp: record('super::udp', 'Datagram'), resolved: `${CORE}/net/udp.rs` },
    { name: 'super star', file: `${CORE}/net/tcp.rs`, imp: record('super', '*'), resolved: `${CORE}/net/mod.rs`, names: [undefined] },
    { name: 'super above the crate root', file: `${CORE}/lib.rs`, imp: record('super', 'X'), resolved: undefined, names: [undefined] },
    { name: 'self path', file: `${CORE}/net/mod.rs`, imp: record('self::tcp', 'Conn'), resolved: `${CORE}/net/tcp.rs` },
    { name: 'plain path: a child of the importing module', file: `${CORE}/lib.rs`, imp: record('net', 'udp'), resolved: `${CORE}/net/mod.rs`, names: [`${CORE}/net/udp.rs`] },
    { name: 'plain path: a module of the crate root (2015)', file: `${CORE}/store/cache.rs`, imp: record('config', 'Config'), resolved: `${CORE}/config.rs` },
    { name: 'workspace crate, hyphen in the package name', file: 'crates/app/src/cli.rs', imp: record('my_core::net::tcp', 'Conn'), resolved: `${CORE}/net/tcp.rs` },
    { name: 'own package from an integration test', file: 'crates/my-core/tests/integration.rs', imp: record('my_core', 'Config'), resolved: `${CORE}/lib.rs` },
    { name: 'leading :: names a crate', file: 'crates/app/src/main.rs', imp: record('::my_core', 'config'), resolved: `${CORE}/lib.rs`, names: [`${CORE}/config.rs`] },
    { name: 'a renamed library by its [lib] name', file: 'crates/app/src/main.rs', imp: record('gen_lib', 'emit'), resolved: 'tools/gen/src/lib.rs', names: ['tools/gen/src/emit.rs'] },
    { name: 'a renamed library not by its package name', file: 'crates/app/src/main.rs', imp: record('codegen', 'emit'), resolved: undefined },
    { name: 'std', file: 'crates/app/src/main.rs', imp: record('std::collections', 'HashMap'), resolved: undefined },
    { name: 'a crates.io dependency', file: `${CORE}/config.rs`, imp: record('serde', 'Deserialize'), resolved: undefined },
    { name: 'a module itself that is external', file: `${CORE}/lib.rs`, imp: record('serde'), resolved: undefined },
    { name: 'a crate path in a binary', file: 'crates/app/src/main.rs', imp: record('crate::cli::args', 'Args'), resolved: 'crates/app/src/cli/args.rs' },
    { name: 'src/bin/x.rs is its own root: mod beside it', file: 'crates/app/src/bin/migrate.rs', imp: record('self::plan'), resolved: 'crates/app/src/bin/plan.rs' },
    { name: 'src/bin/x/main.rs is the root of its modules', file: 'crates/app/src/bin/report/render.rs', imp: record('crate', 'Report'), resolved: 'crates/app/src/bin/report/main.rs' },
    { name: 'tests/x.rs declares tests/common/mod.rs', file: 'crates/my-core/tests/integration.rs', imp: record('self::common'), resolved: 'crates/my-core/tests/common/mod.rs' },
    { name: 'a shared test module has no known root', file: 'crates/my-core/tests/common/mod.rs', imp: record('crate', 'helper'), resolved: undefined },
  ])('$name', ({ file, imp, resolved, names }) => {
    const resolution = resolveModulePath(imp, from(file), files);
    expect(resolution.resolvedPath).toBe(resolved);
    expect(resolution.nameTargets).toHaveLength(imp.names.length);
    if (names) expect(resolution.nameTargets).toEqual(names);
  });

  test('without a Cargo.toml only crate-internal paths resolve', () => {
    const bare = workspace(['src/lib.rs', 'src/util.rs', 'crates/x/src/lib.rs'], {});
    expect(resolveModulePath(record('crate::util', 'f'), from('src/lib.rs'), bare).resolvedPath).toBe('src/util.rs');
    expect(resolveModulePath(record('x', 'f'), from('src/lib.rs'), bare).resolvedPath).toBeUndefined();
  });
});

describe('module files', () => {
  test.each([
    { file: 'src/a/b.rs', root: 'src/lib.rs' },
    { file: 'src/lib.rs', root: 'src/lib.rs' },
    { file: 'src/bin/tool.rs', root: 'src/bin/tool.rs' },
    { file: 'examples/demo.rs', root: 'examples/demo.rs' },
    { file: 'src/tests/helpers.rs', root: 'src/lib.rs' },
  ])('crate root of $file', ({ file, root }) => {
    const has = (relPath: string) => ['src/lib.rs', 'src/main.rs', 'src/a.rs', 'src/a/b.rs'].includes(relPath);
    expect(crateRootOf(file, has)).toBe(root);
  });

  test('parentModule climbs through a.rs and a/mod.rs', () => {
    const has = (relPath: string) => ['src/lib.rs', 'src/a.rs', 'src/a/b/mod.rs', 'src/a/b/c.rs'].includes(relPath);
    expect(parentModule('src/a/b/c.rs', 'src/lib.rs', has)).toBe('src/a/b/mod.rs');
    expect(parentModule('src/a/b/mod.rs', 'src/lib.rs', has)).toBe('src/a.rs');
    expect(parentModule('src/a.rs', 'src/lib.rs', has)).toBe('src/lib.rs');
    expect(parentModule('src/lib.rs', 'src/lib.rs', has)).toBeUndefined();
  });
});

describe('path dependencies outside a workspace', () => {
  // Two packages side by side, no [workspace]: the app names its neighbours by path.
  const SIDE = ['app/src/main.rs', 'helpers/src/lib.rs', 'helpers/src/text.rs', 'gen/src/lib.rs', 'far/src/lib.rs'];
  const TOMLS: Record<string, string> = {
    'app/Cargo.toml': [
      '[package]', 'name = "app"', '',
      '[dependencies]', 'helpers = { path = "../helpers" }', 'h2 = { path = "../helpers", package = "helpers" }',
      'codegen = { path = "../gen" }', 'outside = { path = "../../elsewhere" }', '',
      '[dev-dependencies.far]', 'path = "../far"',
    ].join('\n'),
    'helpers/Cargo.toml': '[package]\nname = "helpers"\n',
    'gen/Cargo.toml': '[package]\nname = "codegen"\n\n[lib]\nname = "gen_lib"\n',
    'far/Cargo.toml': '[package]\nname = "far"\n',
  };
  const side = workspace(SIDE, TOMLS);
  test.each([
    { module: 'helpers::text', resolved: 'helpers/src/text.rs', why: 'by its library name' },
    { module: 'h2', resolved: 'helpers/src/lib.rs', why: 'renamed: by its key' },
    { module: 'gen_lib', resolved: 'gen/src/lib.rs', why: 'by its [lib] name' },
    { module: 'codegen', resolved: undefined, why: 'not by a package name its library does not carry' },
    { module: 'far', resolved: 'far/src/lib.rs', why: 'a dev-dependency table of its own' },
    { module: 'outside', resolved: undefined, why: 'a path out of the workspace' },
  ])('use $module ($why)', ({ module, resolved }) => {
    expect(resolveModulePath(record(module, 'x'), from('app/src/main.rs'), side).resolvedPath).toBe(resolved);
  });
});

describe('Cargo.toml reading', () => {
  test('TOML a line reader gets wrong: brackets in comments, dotted keys, inline tables; broken TOML is absent', () => {
    expect(workspaceMembers('[workspace]\nmembers = [\n  "crates/*", # see [docs]\n  "tools/gen",\n]\n')).toEqual(['crates/*', 'tools/gen']);
    expect(workspaceMembers('workspace.members = ["a", "b"]\n')).toEqual(['a', 'b']);
    expect(libraryName('package.name = "dotted-name"\n')).toBe('dotted_name');
    expect(libraryName('lib = { name = "inline" }\n[package]\nname = "pkg"\n')).toBe('inline');
    expect(libraryName("[package]\nname = 'literal-string' # comment\n")).toBe('literal_string');
    expect(libraryName('[package]\nname = "broken\n')).toBeUndefined();
    expect(pathDependencies('[dependencies]\nserde = "1"\nlocal = { path = "../local" }\n')).toEqual([{ key: 'local', dir: '../local', renamed: false }]);
  });

  test('members and library names', () => {
    expect(workspaceMembers(MANIFESTS['Cargo.toml']!)).toEqual(['crates/*', 'tools/gen']);
    expect(libraryName(MANIFESTS['crates/my-core/Cargo.toml']!)).toBe('my_core');
    expect(libraryName(MANIFESTS['tools/gen/Cargo.toml']!)).toBe('gen_lib');
    // [[bin]] name = "migrate" is a binary's name, not the library's.
    expect(libraryName(MANIFESTS['crates/app/Cargo.toml']!)).toBe('app');
    expect(workspaceMembers(MANIFESTS['crates/app/Cargo.toml']!)).toEqual([]);
  });
});

describe('dependency keys', () => {
  test.each([
    { file: 'src/net/tcp.rs', key: 'tcp' },
    { file: 'src/net/mod.rs', key: 'net' },
    { file: 'src/lib.rs', key: 'everything' },
    { file: 'crates/app/src/main.rs', key: 'everything' },
    { file: 'tests/integration.rs', key: 'everything' },
    { file: 'src/tests/helpers.rs', key: 'helpers' },
  ])('key of $file is $key', ({ file, key }) => {
    expect(rust.imports.keyOfFile(file)).toBe(key);
  });

  test('an import is filed under every segment and name', () => {
    expect(rust.imports.dependencyKeys(record('crate::net::tcp', 'Conn', '*'))).toEqual(['net', 'tcp', 'Conn']);
    expect(rust.imports.dependencyKeys(record('self::util'))).toEqual(['util']);
    expect(rust.imports.dependencyKeys(record('::my_core', 'config'))).toEqual(['my_core', 'config']);
  });

  // The consistency the index relies on: whatever a record resolves to is filed under its key.
  test('every file a table import resolves to has a key among the import\'s keys', () => {
    const imports: [string, ImportRecord][] = [
      [`${CORE}/config.rs`, record('crate::net', 'tcp', 'Packet')],
      [`${CORE}/lib.rs`, record('self::net')],
      [`${CORE}/net/tcp.rs`, record('super::super::config', 'Config')],
      ['crates/app/src/cli.rs', record('my_core::net::tcp', 'Conn')],
      [`${CORE}/store/cache.rs`, record('config', 'Config')],
    ];
    for (const [file, imp] of imports) {
      const resolution = resolveModulePath(imp, from(file), files);
      const keys = new Set(rust.imports.dependencyKeys(imp));
      for (const target of [resolution.resolvedPath, ...resolution.nameTargets]) {
        if (target === undefined) continue;
        const key = rust.imports.keyOfFile(target);
        expect(key === 'everything' || keys.has(key), `${target} from ${file}`).toBe(true);
      }
    }
  });
});
