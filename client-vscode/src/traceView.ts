/**
 * A completion trace (`reposhapley/completionTrace`) as a Markdown document: what was completed,
 * the policy's decision, each candidate and whether it was kept, tokens and timings. Pure, so
 * it is tested without VS Code; the editor shows it read-only (traceDocument.ts).
 */
import { evaluatedTotal, formatPercent } from '../../shared/format.js';
import type { CompletionTrace, TraceCandidate } from '../../shared/messages.js';

/** The trace as Markdown. */
export function renderTrace(trace: CompletionTrace): string {
  const kept = trace.candidates.filter((candidate) => candidate.kept).length;
  const lines = [
    `# Why this completion? (trace ${trace.traceId})`,
    '',
    `${fileName(trace.uri)}, line ${trace.line + 1}, column ${trace.character + 1}: **${trace.outcome}**` +
      `${trace.message ? ` (${trace.message})` : ''}${trace.cached ? ', from the cache' : ''}`,
    '',
    fence(trace.completion, trace.language),
    '',
    '## Decision',
    '',
    `Policy \`${trace.policy}\`${trace.policy === trace.effectivePolicy ? '' : ` (ran as \`${trace.effectivePolicy}\`)`}: ` +
      `${trace.decision === 'need' ? 'retrieve cross-file context' : 'no cross-file context'}` +
      `${trace.needProbability === undefined ? '' : `, P(NEED) = ${formatPercent(trace.needProbability)}`}` +
      `${trace.needThreshold === undefined ? '' : ` (retrieves at ${formatPercent(trace.needThreshold)} or more)`}.`,
    '',
    `## Candidates: ${trace.candidates.length} retrieved, ${kept} kept`,
    '',
    ...candidateTable(trace.candidates),
    '## Tokens and timings',
    '',
    `Prompt ${trace.tokens.prompt} tokens (prefix ${trace.tokens.prefix}, suffix ${trace.tokens.suffix}, ` +
      `chunks ${trace.tokens.chunks}; ${trace.tokens.reused} reused), generated ${trace.tokens.generated}` +
      `${trace.stoppedBy === undefined ? '' : ` (stopped by ${trace.stoppedBy})`}.`,
    ...evaluatedLine(trace.tokens.evaluated),
    '',
    `${trace.timings.waitMs === undefined ? '' : `Waited ${ms(trace.timings.waitMs)} for the model. `}Retrieval ${ms(trace.timings.retrievalMs)}, prompt ${ms(trace.timings.promptMs)}, decision ${ms(trace.timings.decisionMs)}, ` +
      `selection ${ms(trace.timings.selectionMs)}, generation ${ms(trace.timings.generationMs)}; total **${ms(trace.timings.totalMs)}** ` +
      `(index version ${trace.indexVersion}).` +
      (trace.timings.sharedWaitMs ? ` ${ms(trace.timings.sharedWaitMs)} of it waited for other windows' completions (one model shared).` : ''),
  ];
  if (trace.prompt !== undefined) lines.push('', '## Prompt', '', fence(trace.prompt, trace.language));
  return `${lines.join('\n')}\n`;
}

/** What the document says when the server has no trace to give. */
export function renderNoTrace(reason: string): string {
  return `# Why this completion?\n\n${reason}\n`;
}

function candidateTable(candidates: TraceCandidate[]): string[] {
  if (candidates.length === 0) return ['None.', ''];
  return [
    '| # | kept | where | kind | score | sources | P(KEEP) |',
    '|---|---|---|---|---|---|---|',
    // Trace lines are 0-based with an exclusive end; editors show them 1-based and inclusive.
    ...candidates.map((c) => `| ${c.index} | ${c.kept ? 'yes' : 'no'} | ${c.relPath}:${c.startLine + 1}-${Math.max(c.startLine + 1, c.endLine)} ` +
      `| ${c.kind} | ${c.score.toFixed(3)} | ${c.sources.join(', ')} | ${c.keepProbability === undefined ? '' : formatPercent(c.keepProbability)} |`),
    '',
  ];
}

/**
 * A fenced block that no backtick run inside `text` can close early, highlighted as the
 * document's language (the server's language ids are Markdown's names for them).
 */
function fence(text: string, language = ''): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((match) => match[0].length));
  const ticks = '`'.repeat(longest + 1);
  return `${ticks}${language}\n${text}\n${ticks}`;
}

function fileName(uri: string): string {
  return decodeURIComponent(uri.slice(uri.lastIndexOf('/') + 1));
}


function ms(value: number): string {
  return `${Math.round(value)} ms`;
}

/** What the model evaluated, by stage, as one sentence (absent from older servers' traces). */
function evaluatedLine(evaluated: CompletionTrace['tokens']['evaluated']): string[] {
  if (!evaluated) return [];
  const { trigger, selection, prompt, generated } = evaluated;
  return ['', `The model evaluated ${evaluatedTotal(evaluated)} tokens: trigger ${trigger}, selection ${selection}, ` +
    `prompt ${prompt}, generated ${generated}.`];
}
