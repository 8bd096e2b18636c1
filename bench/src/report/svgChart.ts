/**
 * The report's chart, hand-written SVG (no chart library): EM and ES bars per task type and
 * policy with 95 % CI whiskers, and the latency distribution of each as a box plot
 * (box p25–p75, line at the median, whiskers p5–p95, dot at p99).
 */
import type { ArmName, TaskResult } from '../driver/results.js';
import type { BenchSummary, GroupSummary, TypeGroup } from '../metrics/summary.js';
import { quantile } from '../stats.js';

const WIDTH = 960;
const PANEL_HEIGHT = 220;
const MARGIN = { left: 64, right: 24, top: 36, bottom: 40 };
const COLORS = ['#4e79a7', '#f28e2b', '#59a14f', '#e15759', '#76b7b2', '#b07aa1'];

/** Escapes text for SVG. */
export function escapeXml(text: string): string {
  return text.replace(/[<>&"']/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c]!);
}

/** A "nice" axis maximum ≥ value: 1, 2 or 5 times a power of ten. */
export function niceMax(value: number): number {
  if (!(value > 0) || !Number.isFinite(value)) return 1;
  const power = 10 ** Math.floor(Math.log10(value));
  return [1, 2, 5, 10].map((m) => m * power).find((candidate) => candidate >= value)!;
}

/** Geometry of one panel: maps a group/policy slot to x, a value to y. */
interface Panel {
  top: number;
  groups: readonly TypeGroup[];
  policies: readonly ArmName[];
  max: number;
}

const plotWidth = WIDTH - MARGIN.left - MARGIN.right;
const plotHeight = PANEL_HEIGHT - MARGIN.top - MARGIN.bottom;

function y(panel: Panel, value: number): number {
  const clamped = Math.max(0, Math.min(panel.max, value));
  return panel.top + MARGIN.top + plotHeight * (1 - clamped / panel.max);
}

/** Left edge and width of the bar of (group g, policy p). */
function slot(panel: Panel, g: number, p: number): { x: number; width: number } {
  const groupWidth = plotWidth / panel.groups.length;
  const width = (groupWidth * 0.8) / panel.policies.length;
  return { x: MARGIN.left + g * groupWidth + groupWidth * 0.1 + p * width, width };
}

function axes(panel: Panel, title: string, unit: string): string[] {
  const parts = [`<text x="${MARGIN.left}" y="${panel.top + 20}" class="title">${escapeXml(title)}</text>`];
  for (let i = 0; i <= 4; i++) {
    const value = (panel.max * i) / 4;
    const at = y(panel, value);
    parts.push(`<line x1="${MARGIN.left}" x2="${WIDTH - MARGIN.right}" y1="${at}" y2="${at}" class="grid"/>`);
    parts.push(`<text x="${MARGIN.left - 6}" y="${at + 4}" class="tick" text-anchor="end">${formatTick(value)}${unit}</text>`);
  }
  panel.groups.forEach((group, g) => {
    const first = slot(panel, g, 0);
    const last = slot(panel, g, panel.policies.length - 1);
    const center = (first.x + last.x + last.width) / 2;
    parts.push(`<text x="${center}" y="${panel.top + PANEL_HEIGHT - 16}" class="label" text-anchor="middle">${escapeXml(group)}</text>`);
  });
  return parts;
}

function formatTick(value: number): string {
  return Number.isInteger(value) ? String(value) : value.toFixed(1);
}

/** Bars with CI whiskers for one metric. */
function barPanel(top: number, summary: BenchSummary, groups: readonly TypeGroup[], policies: readonly ArmName[], metric: 'em' | 'es', title: string): string[] {
  const find = (policy: ArmName, type: TypeGroup): GroupSummary | undefined => summary.groups.find((s) => s.policy === policy && s.type === type);
  const highest = Math.max(10, ...summary.groups.map((s) => s[metric].high).filter(Number.isFinite));
  const panel: Panel = { top, groups, policies, max: Math.min(100, niceMax(highest)) };
  const parts = axes(panel, title, '');
  groups.forEach((type, g) => policies.forEach((policy, p) => {
    const interval = find(policy, type)?.[metric];
    if (!interval || !Number.isFinite(interval.mean)) return;
    const { x, width } = slot(panel, g, p);
    const barTop = y(panel, interval.mean);
    const center = x + width / 2;
    parts.push(`<rect x="${x}" y="${barTop}" width="${width * 0.9}" height="${y(panel, 0) - barTop}" fill="${COLORS[p % COLORS.length]}"><title>${escapeXml(`${policy} ${type}: ${interval.mean.toFixed(1)} [${interval.low.toFixed(1)}, ${interval.high.toFixed(1)}]`)}</title></rect>`);
    const [low, high] = [y(panel, interval.low), y(panel, interval.high)];
    const w = center - width * 0.05;
    parts.push(`<path d="M${w} ${low}V${high}M${w - 4} ${low}H${w + 4}M${w - 4} ${high}H${w + 4}" class="whisker"/>`);
  }));
  return parts;
}

/** Box plots of client latency per task type and policy. */
function latencyPanel(top: number, results: readonly TaskResult[], groups: readonly TypeGroup[], policies: readonly ArmName[]): string[] {
  const latencies = (policy: ArmName, type: TypeGroup) =>
    results.filter((r) => r.policy === policy && (type === 'all' || r.type === type)).map((r) => r.latencyMs).filter(Number.isFinite);
  const all = results.map((r) => r.latencyMs).filter(Number.isFinite);
  const panel: Panel = { top, groups, policies, max: niceMax(quantile(all, 0.99)) };
  const parts = axes(panel, 'Latency (ms, client-side): box p25–p75, line p50, whiskers p5–p95, dot p99', '');
  groups.forEach((type, g) => policies.forEach((policy, p) => {
    const values = latencies(policy, type);
    if (values.length === 0) return;
    const [p5, p25, p50, p75, p95, p99] = [0.05, 0.25, 0.5, 0.75, 0.95, 0.99].map((q) => y(panel, quantile(values, q)));
    const { x, width } = slot(panel, g, p);
    const w = width * 0.9;
    const center = x + w / 2;
    const color = COLORS[p % COLORS.length];
    parts.push(`<path d="M${center} ${p5}V${p25}M${center} ${p75}V${p95}M${center - w / 4} ${p5}H${center + w / 4}M${center - w / 4} ${p95}H${center + w / 4}" style="stroke:${color};fill:none"/>`);
    parts.push(`<rect x="${x}" y="${p75}" width="${w}" height="${Math.max(1, p25! - p75!)}" fill="${color}" fill-opacity="0.35" stroke="${color}"/>`);
    parts.push(`<path d="M${x} ${p50}H${x + w}" stroke="${color}" stroke-width="2"/>`);
    parts.push(`<circle cx="${center}" cy="${p99}" r="2.5" fill="${color}"><title>${escapeXml(`${policy} ${type}: p50 ${quantile(values, 0.5).toFixed(0)} ms, p99 ${quantile(values, 0.99).toFixed(0)} ms`)}</title></circle>`);
  }));
  return parts;
}

function legend(policies: readonly ArmName[]): string[] {
  return policies.map((policy, p) => {
    const x = MARGIN.left + p * 150;
    return `<rect x="${x}" y="10" width="12" height="12" fill="${COLORS[p % COLORS.length]}"/><text x="${x + 18}" y="21" class="label">${escapeXml(policy)}</text>`;
  });
}

/** The chart as an SVG document. */
export function renderChart(summary: BenchSummary, results: readonly TaskResult[], policies: readonly ArmName[], groups: readonly TypeGroup[]): string {
  const height = 30 + PANEL_HEIGHT * 3;
  const body = [
    ...legend(policies),
    ...barPanel(30, summary, groups, policies, 'em', 'Exact match (%), 95 % bootstrap CI'),
    ...barPanel(30 + PANEL_HEIGHT, summary, groups, policies, 'es', 'Edit similarity (0–100), 95 % bootstrap CI'),
    ...latencyPanel(30 + 2 * PANEL_HEIGHT, results, groups, policies),
  ];
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" font-family="sans-serif">`,
    '<style>.title{font-size:13px;font-weight:bold}.tick{font-size:10px;fill:#555}.label{font-size:12px}.grid{stroke:#ddd}.whisker{stroke:#222;fill:none}</style>',
    `<rect width="${WIDTH}" height="${height}" fill="white"/>`,
    ...body,
    '</svg>',
    '',
  ].join('\n');
}
