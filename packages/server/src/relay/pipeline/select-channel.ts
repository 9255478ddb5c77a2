import type { Candidate } from '../../storage/repositories/relay-store.js';

/**
 * Channel choice, at each attempt of attempt-channels.ts: which channel. Highest priority tier first; inside a
 * tier, weighted random by `weight` (all-zero weights mean equal chances). Channels already tried for this request
 * are skipped, so a retry never hits the same failed channel twice and falls through to lower tiers when a tier is
 * used up.
 */
export function selectChannel<C extends Candidate>(candidates: C[], exclude: ReadonlySet<number>, random: () => number = Math.random): C | undefined {
  const open = candidates.filter((c) => !exclude.has(c.id));
  if (open.length === 0) return undefined;
  const top = Math.max(...open.map((c) => c.priority));
  const tier = open.filter((c) => c.priority === top);
  const total = tier.reduce((sum, c) => sum + Math.max(0, c.weight), 0);
  if (total <= 0) return tier[Math.floor(random() * tier.length)];
  let pick = random() * total;
  for (const candidate of tier) {
    pick -= Math.max(0, candidate.weight);
    if (pick < 0) return candidate;
  }
  return tier[tier.length - 1];
}
