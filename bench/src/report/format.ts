/** Number formatting for the report: fixed digits, '–' for what was not measured. */

/** `value` with `digits` decimals, or '–' when it is not a finite number. */
export function num(value: number, digits = 1): string {
  return Number.isFinite(value) ? value.toFixed(digits) : '–';
}

/** A ratio in 0..1 as a percentage. */
export function pct(value: number, digits = 1): string {
  return Number.isFinite(value) ? `${(value * 100).toFixed(digits)} %` : '–';
}

/** Mean with its interval: `12.3 [9.0, 15.6]`. */
export function withInterval(interval: { mean: number; low: number; high: number }, digits = 1): string {
  if (!Number.isFinite(interval.mean)) return '–';
  return `${num(interval.mean, digits)} [${num(interval.low, digits)}, ${num(interval.high, digits)}]`;
}

/** Signed mean with its interval, marked when the interval excludes 0. */
export function signedInterval(interval: { mean: number; low: number; high: number }, digits = 1): string {
  if (!Number.isFinite(interval.mean)) return '–';
  const sign = (x: number) => {
    const text = num(x, digits);
    // A tiny negative rounds to "-0.0": show it as 0.
    if (Number(text) === 0) return num(0, digits);
    return (x > 0 ? '+' : '') + text;
  };
  const significant = interval.low > 0 || interval.high < 0 ? ' *' : '';
  return `${sign(interval.mean)} [${sign(interval.low)}, ${sign(interval.high)}]${significant}`;
}

/** A Markdown table from a header row and body rows. */
export function markdownTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const line = (cells: readonly string[]) => `| ${cells.join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}
