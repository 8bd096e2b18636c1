import { describe, expect, test } from 'vitest';
import { ContaminationIndex } from './contamination.js';
import { capPackage, CorpusBuilder, type SourcePackage } from './corpusBuilder.js';
import { normalizedLines } from './textFilters.js';

/** Distinct, realistic-looking code: `n` functions whose names and bodies depend on `seed`. */
function code(seed: string, n = 4): string {
  const out: string[] = [`"""Module ${seed}."""`, 'import os', ''];
  for (let i = 0; i < n; i++) {
    out.push(`def ${seed}_step_${i}(path, limit=${i + 3}):`, `    total_${seed} = len(os.listdir(path)) + ${i}`,
      `    if total_${seed} > limit:`, `        return "${seed}-${i}-" + path`, `    return None`, '');
  }
  return out.join('\n');
}

function source(name: string, files: Record<string, string>, stdlib = false): SourcePackage {
  return {
    name, version: '1.0', stdlib, files: Object.keys(files),
    readFile: async (rel) => Buffer.from(files[rel]!, 'utf8'),
  };
}

const reasons = (rows: Array<{ path: string; status: string; reason: string }>) =>
  Object.fromEntries(rows.map((r) => [r.path, r.status === 'kept' ? 'kept' : r.reason]));

describe('CorpusBuilder', () => {
  test('applies path rules, A.2 filters, decontamination and exact/near dedup', async () => {
    const bench = code('benchmark', 6);
    const contamination = new ContaminationIndex();
    contamination.addBenchmarkFile('python3-requests:requests/api.py', normalizedLines(bench));
    const builder = new CorpusBuilder(contamination, { maxPackageBytes: 1e9 });
    const first = await builder.addPackage(source('python3-first', {
      'first/core.py': code('alpha'),
      'first/tiny.py': 'x = 1\n',
    }));
    const nearCopy = code('alpha').replace('return None', 'return  None  # nothing found');
    const second = await builder.addPackage(source('python3-second', {
      'second/_vendor/lib.py': code('vendored'),
      'second/copy.py': code('alpha').replace(/^/gm, '  '),
      'second/near.py': nearCopy,
      'second/leak.py': `# header\n${bench}\n`,
      'second/own.py': code('beta'),
      'second/own_too.py': code('gamma'),
    }));
    expect(reasons(first.rows)).toEqual({ 'first/core.py': 'kept', 'first/tiny.py': 'too-short' });
    expect(reasons(second.rows)).toEqual({
      'second/_vendor/lib.py': 'vendored',
      'second/copy.py': 'duplicate',
      'second/leak.py': 'contaminated',
      'second/near.py': 'near-duplicate',
      'second/own.py': 'kept',
      'second/own_too.py': 'kept',
    });
    expect(second.rows.find((r) => r.path === 'second/copy.py')!.detail).toContain('python3-first:first/core.py');
    expect(second.rows.find((r) => r.path === 'second/leak.py')!.detail).toContain('python3-requests:requests/api.py');
    expect(second.kept.map((f) => f.path)).toEqual(['second/own.py', 'second/own_too.py']);
    const kept = second.rows.find((r) => r.path === 'second/own.py')!;
    expect(kept.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(kept.bytes).toBe(Buffer.byteLength(code('beta')));
  });

  test('duplicates inside one package keep the first path', async () => {
    const builder = new CorpusBuilder(new ContaminationIndex(), { maxPackageBytes: 1e9 });
    const result = await builder.addPackage(source('p', { 'a/x.py': code('same'), 'b/x.py': code('same') }));
    expect(reasons(result.rows)).toEqual({ 'a/x.py': 'kept', 'b/x.py': 'duplicate' });
  });

  test('the standard library has its own exclusions and its own cap', async () => {
    const builder = new CorpusBuilder(new ContaminationIndex(), { maxPackageBytes: 10, maxStdlibBytes: 1e9 });
    const result = await builder.addPackage(source('python3.11-stdlib', {
      'test/test_os.py': code('t'), 'os.py': code('os'), 'shutil.py': code('sh'),
    }, true));
    expect(reasons(result.rows)).toEqual({ 'os.py': 'kept', 'shutil.py': 'kept', 'test/test_os.py': 'stdlib-excluded' });
  });

  test('files dropped by the cap are not duplicates-of-record for later packages', async () => {
    const builder = new CorpusBuilder(new ContaminationIndex(), { maxPackageBytes: 1 });
    const first = await builder.addPackage(source('p1', { 'a/one.py': code('one'), 'b/two.py': code('two') }));
    expect(first.rows.filter((r) => r.reason === 'package-cap')).toHaveLength(1);
    const capped = first.rows.find((r) => r.reason === 'package-cap')!.path;
    const dropped = capped === 'a/one.py' ? code('one') : code('two');
    const second = await builder.addPackage(source('p2', { 'c/again.py': dropped }));
    expect(reasons(second.rows)).toEqual({ 'c/again.py': 'kept' });
  });
});

describe('capPackage', () => {
  const file = (path: string, bytes = 10) => ({ path, bytes });

  test('keeps library code before tests', () => {
    const result = capPackage([file('pkg/tests/test_a.py'), file('pkg/a.py'), file('pkg/b.py')], 20);
    expect(result.filter((f) => f.keep).map((f) => f.path).sort()).toEqual(['pkg/a.py', 'pkg/b.py']);
  });

  test('takes directories whole and stops at the first file that does not fit', () => {
    const files = ['x/1.py', 'x/2.py', 'x/3.py', 'y/1.py', 'y/2.py', 'y/3.py', 'z/1.py'].map((p) => file(p));
    const kept = capPackage(files, 35).filter((f) => f.keep).map((f) => f.path);
    expect(kept).toHaveLength(3);
    expect(new Set(kept.map((p) => p.split('/')[0])).size).toBe(1);
  });

  test('always keeps at least one file', () => {
    expect(capPackage([file('a.py', 100)], 10).map((f) => f.keep)).toEqual([true]);
  });
});
