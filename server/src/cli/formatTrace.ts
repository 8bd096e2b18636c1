/** A completion trace as readable lines for the terminal (`reposhapley complete`). */
import { evaluatedTotal, formatPercent } from '../../../shared/format.js';
import type { CompletionTrace, TraceCandidate } from '../../../shared/messages.js';

function percent(probability: number | undefined): string {
  return probability === undefined ? '' : ` ${formatPercent(probability)}`;
}

/**
 * One line per candidate. Trace lines follow the index convention (0-based, end exclusive),
 * printed 1-based inclusive like an editor shows them.
 */
function formatCandidate(candidate: TraceCandidate): string {
  const mark = candidate.kept ? 'KEEP' : 'drop';
  const where = `${candidate.relPath}:${candidate.startLine + 1}-${Math.max(candidate.startLine + 1, candidate.endLine)}`;
  const keep = candidate.keepProbability === undefined ? '' : `  P(KEEP)${percent(candidate.keepProbability)}`;
  const kind = candidate.lists ? `${candidate.kind} of ${candidate.lists.length} imported definitions` : candidate.kind;
  return `  [${candidate.index}] ${mark} ${where} ${kind}  score ${candidate.score.toFixed(3)}  (${candidate.sources.join(', ')})${keep}`;
}

/** The trace as lines: decision, candidates, tokens, timings. */
export function formatTrace(trace: CompletionTrace): string[] {
  const threshold = trace.needThreshold === undefined ? '' : `, t_c${percent(trace.needThreshold)}`;
  const need = trace.needProbability === undefined ? '' : ` (P(NEED)${percent(trace.needProbability)}${threshold})`;
  const stopped = trace.stoppedBy === undefined ? '' : `, stopped by ${trace.stoppedBy}`;
  const { tokens, timings } = trace;
  const kept = trace.candidates.filter((candidate) => candidate.kept).length;
  return [
    `outcome: ${trace.outcome}${trace.message ? ` (${trace.message})` : ''}${trace.cached ? ', cached' : ''}`,
    ...(trace.model ? [`model: ${trace.model.label}, layout ${trace.model.layout}${trace.model.fallback ? ' (FALLBACK: the model asked for is not available)' : ''}`] : []),
    ...(trace.model?.chosenBy ? [`  picked by ${trace.model.chosenBy}`] : []),
    ...(trace.quickFirstAnswer ? ['quick first answer: the model had just loaded, so a short prompt answered (setting quickFirstAnswer)'] : []),
    `policy: ${trace.policy} -> ${trace.effectivePolicy}; decision: ${trace.decision}${need}`,
    `candidates: ${trace.candidates.length} retrieved, ${kept} kept`,
    ...trace.candidates.map(formatCandidate),
    `tokens: prompt ${tokens.prompt} (prefix ${tokens.prefix}, suffix ${tokens.suffix}, chunks ${tokens.chunks}), ` +
      `generated ${tokens.generated}${stopped}, reused ${tokens.reused}` + evaluatedText(tokens.evaluated),
    `timings: ${timings.waitMs === undefined ? '' : `waited for the model ${ms(timings.waitMs)}, `}retrieval ${ms(timings.retrievalMs)}, prompt ${ms(timings.promptMs)}, decision ${ms(timings.decisionMs)}, ` +
      `selection ${ms(timings.selectionMs)}, generation ${ms(timings.generationMs)}, total ${ms(timings.totalMs)}` +
      (timings.sharedWaitMs ? ` (of which ${ms(timings.sharedWaitMs)} behind other windows' completions)` : ''),
    `index version ${trace.indexVersion}; trace ${trace.traceId}`,
    ...(trace.prompt === undefined ? [] : ['--- prompt ---', trace.prompt]),
  ];
}

function ms(value: number): string {
  return `${Math.round(value)} ms`;
}

/** What the model evaluated, by stage (absent from traces of older servers). */
function evaluatedText(evaluated: CompletionTrace['tokens']['evaluated']): string {
  if (!evaluated) return '';
  const { trigger, selection, prompt, generated } = evaluated;
  return `; evaluated ${evaluatedTotal(evaluated)} (trigger ${trigger}, selection ${selection}, prompt ${prompt}, generated ${generated})`;
}
