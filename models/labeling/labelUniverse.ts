/**
 * Which targets of a repository the labeler labels: per kind, the first `perRepository × mix`
 * targets of the seeded draw that one completion can hold (the rest are redrawn), whatever the
 * shard. `--shard i/N` then takes the ids whose hash is i mod N of that one list, so N machines
 * together label exactly what one machine would (until 2026-12-01 each shard filled its own
 * quota, and N shards labeled N times as many instances, further down the draw).
 */
import type { Target, TargetKind } from '../data/targets.js';
import { TARGET_KINDS } from '../data/targets.js';

export function labelUniverse(
  drawn: Record<TargetKind, Target[]>, perRepository: number, mix: Record<TargetKind, number>,
  fits: (target: Target) => boolean,
): Target[] {
  const chosen: Target[] = [];
  for (const kind of TARGET_KINDS) {
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
