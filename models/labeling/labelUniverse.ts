/**
 * Which targets of a repository the labeler labels: per kind, the first `perRepository × mix`
 * targets of the seeded draw that one completion can hold (the rest are redrawn), whatever the
 * shard. `--shard i/N` then takes the ids whose hash is i mod N of that one list, so N machines
 * together label exactly what one machine would (until 2026-12-01 each shard filled its own
 * quota, and N shards labeled N times as many instances, further down the draw).
 *
 * `kinds` narrows the labeling to some kinds (`--kinds api`) without changing their targets: the
 * draw (and so each kind's list) is made with the full mix either way. The kinds share one seeded
 * stream, line first, so only line targets are a prefix of a larger `perRepository`'s; API and
 * block targets change with it (each record is self-contained, so none is lost).
 */
import type { Target, TargetKind } from '../data/targets.js';
import { TARGET_KINDS } from '../data/targets.js';

export function labelUniverse(
  drawn: Record<TargetKind, Target[]>, perRepository: number, mix: Record<TargetKind, number>,
  fits: (target: Target) => boolean, kinds: readonly TargetKind[] = TARGET_KINDS,
): Target[] {
  const chosen: Target[] = [];
  for (const kind of TARGET_KINDS.filter((k) => kinds.includes(k))) {
    const wanted = Math.round(perRepository * mix[kind]);
    let found = 0;
    // `fits` tokenizes; the draw holds three times the quota, so stop once it is met.
    for (const target of drawn[kind]) {
      if (found === wanted) break;
      if (!fits(target)) continue;
      chosen.push(target);
      found++;
    }
  }
  return chosen;
}

/** The id a label record carries (1-based line and column). */
export function instanceId(repository: string, target: Target): string {
  return `${repository}/${target.relPath}:${target.line + 1}:${target.character + 1}:${target.kind}`;
}
