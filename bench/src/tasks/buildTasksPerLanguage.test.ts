import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';
import type { LanguageId } from '../../../server/src/languages/language.js';
import { buildTasks } from './buildTasks.js';

const FIXTURES = fileURLToPath(new URL('../../../test/fixtures/', import.meta.url));

interface Case {
  language: LanguageId;
  fixture: string;
  /** Every API task of the repository: target -> `relPath qualifiedName` of its callee. */
  api: Record<string, string>;
  /** Lines (trimmed) that are comments or prose: never line tasks. */
  notLines: string[];
  /** Lines (trimmed) that are line tasks. */
  lines: string[];
}

const CASES: Case[] = [
  {
    language: 'go', fixture: 'bench-go',
    api: {
      'cart.New()': 'cart/cart.go New',
      'clock.Now())': 'internal/clockv1/clock.go Now', // the package clause names it, not the path
      'cart.Total(basket), tm.Since(1), usage)': 'cart/total.go Total', // leftmost resolving call
      'tm.Since(clock.Now())': 'timing/timing.go Since', // an import alias
      'sumItems(c.items)': 'cart/sum.go sumItems', // the same package, another file
      'label())': 'cart/sum.go label',
      // package cart_test shares the directory with package cart, not its names
      'label()': 'cart/z_helpers_test.go label',
    },
    notLines: ['// Package cart holds the items of one order.', 'comment so that its lines are no tasks.',
      'Total sums the cart: written as a block', '// fmt.Println(cart.Total(basket)) is what a comment says', 'and prints the total`'],
    lines: ['return &Cart{items: []int{}}', 'basket.Add(clock.Now())'],
  },
  {
    language: 'rust', fixture: 'bench-rust',
    api: {
      'util::double(1)': 'src/util.rs double', // `mod util;`
      'Meter::new(0)': 'src/util.rs Meter.new',
      'double(self.items.len() as u32);': 'src/util.rs double',
      'Meter::new(doubled);': 'src/util.rs Meter.new',
      'helpers::double(2);': 'src/util.rs double', // `use crate::util as helpers;`
      'Meter::zero().read() + twice;': 'src/extra.rs Meter.zero', // an impl in another file
      'pick::<u32>(empty);': 'src/util.rs pick',
      'pick(value);': 'src/util.rs pick', // `use crate::util::*;`
      'Meters(kept);': 'src/util.rs Meters', // a tuple struct; `Err(Err::Incomplete)` calls no enum
      'Cart::new();': 'src/cart.rs Cart.new', // `use shop::Cart`, re-exported by lib.rs
    },
    notLines: ['//! A shop: carts and their totals.', '/// Twice `x`.', '/* A block comment', 'spanning lines: helpers::double(2) */',
      'let text = "a string', 'spanning lines";'],
    lines: ['let chosen = pick::<u32>(empty);', 'println!("total {}", helpers::double(meter.read()));'],
  },
  {
    language: 'javascript', fixture: 'bench-javascript',
    api: {
      'double(this.items.length);': 'lib/util.js double',
      'new M(doubled);': 'lib/util.js Meter',
      'fmt.money(meter.read());': 'lib/money.js money', // through `export { money } from`
      "Store.open('carts');": 'lib/store.js Store.open', // a default export's static method
      'tokenize(source);': 'lib/tokens.cjs tokenize',
      'parse(tokens).length;': 'lib/parse.cjs parse', // `module.exports = parse`
      'new Cart();': 'lib/cart.js Cart',
      'double(cart.total().length));': 'lib/util.js double', // through `export * from`
    },
    notLines: ['// The cart: items and their total.', '* A cart of prices.', '* const hidden = double(1);',
      'const banner = `first line', 'second line of a template`;'],
    lines: ['const text = fmt.money(meter.read());', 'return text + banner + store.name;'],
  },
  {
    // The same tree as TypeScript: only the .ts files give tasks; `./units.js` names units.ts.
    language: 'typescript', fixture: 'bench-javascript',
    api: { 'cents(n) * 2;': 'lib/units.ts cents' },
    notLines: ['const doubled = double(this.items.length);'],
    lines: ['export const twice = (n: number): number => cents(n) * 2;'],
  },
];

describe.each(CASES)('$language tasks ($fixture)', ({ language, fixture, api, notLines, lines }) => {
  const root = path.join(FIXTURES, fixture);
  const build = () => buildTasks([{ name: fixture, root, language }], { types: ['line', 'api', 'block'], limit: 10_000, seed: 1, perFileCap: 1_000 });

  test('API tasks: calls resolved to another file, cut at the call', async () => {
    const { tasks } = await build();
    const found = Object.fromEntries(tasks.filter((t) => t.type === 'api').map((t) => [t.target, `${t.callee!.relPath} ${t.callee!.qualifiedName}`]));
    expect(found).toEqual(api);
  });

  test('line tasks: code lines only, never comments or multi-line strings', async () => {
    const { tasks } = await build();
    const targets = new Set(tasks.filter((t) => t.type === 'line').map((t) => t.target.trim()));
    for (const line of notLines) expect(targets, line).not.toContain(line);
    for (const line of lines) expect(targets, line).toContain(line);
  });

  test('every task cuts a file of the language exactly', async () => {
    const { tasks } = await build();
    expect(tasks.length).toBeGreaterThan(0);
    for (const task of tasks) {
      expect(task.prefix + task.target + task.suffix).toBe(await readFile(task.absPath, 'utf8'));
      expect(task.relPath.endsWith(language === 'typescript' ? '.ts' : '')).toBe(true);
    }
  });
});
