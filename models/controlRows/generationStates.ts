/** Where extractFeatures reads the trigger and the completion's states (issue 20). */
import type { HiddenStateReader } from '../../server/src/model/completionModel.js';

/**
 * The trigger's state and, in one pass from it, the states that predict each token of Y in the
 * no-retrieval prompt. That prompt continues the trigger: it is the trigger itself (read where the
 * completion starts, so the trigger's state predicts Y's first token) or the trigger and what the
 * layout adds (`<|fim_middle|>` after a trigger read at the end of the suffix).
 */
export async function generationStates(
  reader: Pick<HiddenStateReader, 'statesAfter'>, trigger: number[], noRetrieval: number[], y: number[],
): Promise<{ triggerState: Float32Array; states: Float32Array[] }> {
  if (noRetrieval.length < trigger.length || trigger.some((id, i) => noRetrieval[i] !== id)) {
    throw new Error('the no-retrieval prompt does not continue the trigger prompt: the layout reads them apart (prompt/layouts.ts)');
  }
  const rest = noRetrieval.slice(trigger.length);
  const steps = [...(rest.length > 0 ? [rest] : []), ...y.slice(0, -1).map((t) => [t])];
  const states = await reader.statesAfter(trigger, steps);
  return { triggerState: states[0]!, states: rest.length > 0 ? states.slice(1) : states };
}
