/**
 * A seeded random source for fuzz and soak runs: same seed, same cases, so a failure is
 * reproduced by rerunning with the seed it printed.
 */

/** Deterministic pseudo-random numbers (sfc32, seeded through splitmix32). */
export class Random {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(readonly seed: number) {
    let s = seed >>> 0;
    const next = (): number => {
      s = (s + 0x9e3779b9) >>> 0;
      let z = s;
      z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
      z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
      return (z ^ (z >>> 16)) >>> 0;
    };
    this.a = next();
    this.b = next();
    this.c = next();
    this.d = next();
    for (let i = 0; i < 12; i++) this.float();
  }

  /** Uniform in [0, 1). */
  float(): number {
    const t = (((this.a + this.b) >>> 0) + this.d) >>> 0;
    this.d = (this.d + 1) >>> 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) >>> 0;
    this.c = ((this.c << 21) | (this.c >>> 11)) >>> 0;
    this.c = (this.c + t) >>> 0;
    return t / 4294967296;
  }

  /** Integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.float() * n);
  }

  /** Integer in [min, max]. */
  between(min: number, max: number): number {
    return min + this.int(max - min + 1);
  }

  chance(p: number): boolean {
    return this.float() < p;
  }

  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)]!;
  }

  /** Picks by weight: `[[weight, value], ...]`. */
  weighted<T>(choices: readonly (readonly [number, T])[]): T {
    const total = choices.reduce((sum, [w]) => sum + w, 0);
    let x = this.float() * total;
    for (const [w, value] of choices) {
      x -= w;
      if (x < 0) return value;
    }
    return choices[choices.length - 1]![1];
  }

  bytes(n: number): Buffer {
    const out = Buffer.alloc(n);
    for (let i = 0; i < n; i++) out[i] = this.int(256);
    return out;
  }

  /**
   * A string of `n` UTF-16 units mixing ASCII, keywords and punctuation of the languages served, line breaks (LF, CRLF, lone CR),
   * NUL, non-ASCII letters, astral characters and lone surrogates.
   */
  text(n: number): string {
    const parts: string[] = [];
    let length = 0;
    while (length < n) {
      const piece = this.weighted<() => string>([
        [40, () => String.fromCharCode(this.between(0x20, 0x7e))],
        [10, () => this.pick(['def ', 'class ', 'import ', 'self.', 'return ', '    ', '(', ')', ':', '"""', "'", '#', '\\'])],
        [6, () => this.pick(['fn ', 'use ', 'mod ', 'impl ', '::', 'func ', 'package ', 'const ', 'require(', 'export ', '=> ', '{', '}', '`', '${', '/*', '*/', '<', '>'])],
        [8, () => this.pick(['\n', '\r\n', '\r', '\t'])],
        [2, () => '\u0000'],
        [4, () => this.pick(['é', 'ß', 'ж', '中', '\u00a0', '\u2028', '\ufeff', '\ufffd'])],
        [3, () => this.pick(['😀', '𝔘', '\u{10ffff}'])],
        [2, () => String.fromCharCode(this.between(0xd800, 0xdfff))],
      ])();
      parts.push(piece);
      length += piece.length;
    }
    return parts.join('').slice(0, n);
  }
}
