/**
 * Utility scores, exemplar selection and library curation for the four curation strategies
 * of seed 003 §5.2 (after arXiv:2505.00234: trajectory bootstrapping, database-level and
 * exemplar-level curation).
 *
 * **utilityScore** (in [0, 1], rounded to 4 decimals) =
 *   0.6 × reward
 * + 0.2 × efficiency — `min(1, median / total)`: the library's median total duration over
 *   this trajectory's (1 when at most the median; 0.5 when either is unknown or zero);
 * + 0.2 × contributor reputation — the contributor's mean reward in this library, smoothed
 *   toward 0.5 with weight 2: `(Σ rewards + 1) / (n + 2)` (low-reputation peers weigh less, §9.4).
 */
import type { JsonObject } from '../../core/json.js';
import {
  jaccard,
  jsonTokens,
  pathSignature,
  stepLabel,
  totalDuration,
  type Trajectory,
} from './trajectory.js';

/** The curation strategies of the seed. */
export const CURATION_STRATEGIES = ['ACCUMULATE', 'DATABASE_LEVEL', 'EXEMPLAR_LEVEL', 'HYBRID'] as const;

/** A curation strategy. */
export type CurationStrategy = (typeof CURATION_STRATEGIES)[number];

/** Options of curation. */
export interface CurationPolicy {
  /** `EXEMPLAR_LEVEL` prunes trajectories whose utility is below this. @default 0.4 */
  readonly pruneBelow: number;
  /** `DATABASE_LEVEL` keeps at most this many trajectories per step path. @default 3 */
  readonly keepPerPath: number;
}

/** Weight of already selected exemplars' similarity in `HYBRID` selection. */
export const DIVERSITY_WEIGHT = 0.3;

function round4(value: number): number {
  return Math.round(value * 10_000) / 10_000;
}

function median(values: number[]): number | undefined {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid] : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
}

/** Computes utility scores for a whole task-type library at once. */
export function utilityScores(library: readonly Trajectory[]): Map<string, number> {
  const durations = library.map(totalDuration).filter((d): d is number => d !== undefined);
  const mid = median(durations);
  const byPeer = new Map<string, { sum: number; n: number }>();
  for (const t of library) {
    const p = byPeer.get(t.peerId) ?? { sum: 0, n: 0 };
    p.sum += t.reward;
    p.n += 1;
    byPeer.set(t.peerId, p);
  }
  const scores = new Map<string, number>();
  for (const t of library) {
    const total = totalDuration(t);
    const efficiency =
      mid === undefined || total === undefined || total === 0 || mid === 0 ? 0.5 : Math.min(1, mid / total);
    const peer = byPeer.get(t.peerId) ?? { sum: 0, n: 0 };
    const reputation = (peer.sum + 1) / (peer.n + 2);
    scores.set(t.trajectoryId, round4(0.6 * t.reward + 0.2 * efficiency + 0.2 * reputation));
  }
  return scores;
}

/** True when a trajectory may serve as an exemplar (a success, or an augmented failure). */
export function isExemplarCandidate(t: Trajectory): boolean {
  return t.state === 'SUCCESS' || t.state === 'AUGMENTED';
}

function byUtility(scores: Map<string, number>, order: Map<string, number>) {
  return (a: Trajectory, b: Trajectory): number =>
    (scores.get(b.trajectoryId) ?? 0) - (scores.get(a.trajectoryId) ?? 0) ||
    b.reward - a.reward ||
    (order.get(b.trajectoryId) ?? 0) - (order.get(a.trajectoryId) ?? 0);
}

function similarity(a: Trajectory, b: Trajectory): number {
  const steps = jaccard(new Set(a.steps.map(stepLabel)), new Set(b.steps.map(stepLabel)));
  const inputs = jaccard(jsonTokens(a.input), jsonTokens(b.input));
  return (steps + inputs) / 2;
}

/**
 * Picks up to `limit` exemplars from a task-type library (oldest first) among candidates with
 * reward ≥ `minReward`:
 * - `ACCUMULATE`: the newest first (the library as accumulated, no ranking);
 * - `EXEMPLAR_LEVEL`: highest utility first;
 * - `DATABASE_LEVEL`: the best trajectory of each distinct step path, highest utility first;
 * - `HYBRID`: greedy maximal marginal relevance — at each pick, utility minus
 *   {@link DIVERSITY_WEIGHT} × the highest similarity (mean of step-label and input-token
 *   Jaccard) to what is already picked.
 * Ties: higher reward, then newer.
 */
export function selectExemplars(
  library: readonly Trajectory[],
  scores: Map<string, number>,
  strategy: CurationStrategy,
  limit: number,
  minReward: number,
): Trajectory[] {
  const order = new Map(library.map((t, i) => [t.trajectoryId, i]));
  const candidates = library.filter((t) => isExemplarCandidate(t) && t.reward >= minReward);
  switch (strategy) {
    case 'ACCUMULATE':
      return [...candidates].reverse().slice(0, limit);
    case 'EXEMPLAR_LEVEL':
      return [...candidates].sort(byUtility(scores, order)).slice(0, limit);
    case 'DATABASE_LEVEL': {
      const seen = new Set<string>();
      const out: Trajectory[] = [];
      for (const t of [...candidates].sort(byUtility(scores, order))) {
        const path = pathSignature(t.steps);
        if (seen.has(path)) continue;
        seen.add(path);
        out.push(t);
        if (out.length === limit) break;
      }
      return out;
    }
    case 'HYBRID': {
      const pool = [...candidates].sort(byUtility(scores, order));
      const out: Trajectory[] = [];
      while (out.length < limit && pool.length > 0) {
        let best = 0;
        let bestValue = -Infinity;
        pool.forEach((t, i) => {
          const redundancy = out.reduce((m, s) => Math.max(m, similarity(t, s)), 0);
          const value = (scores.get(t.trajectoryId) ?? 0) - DIVERSITY_WEIGHT * redundancy;
          if (value > bestValue) {
            bestValue = value;
            best = i;
          }
        });
        const [picked] = pool.splice(best, 1);
        if (picked !== undefined) out.push(picked);
      }
      return out;
    }
  }
}

/**
 * The trajectories curation removes from a task-type library:
 * - `ACCUMULATE`: none (every trajectory is kept, as in trajectory bootstrapping);
 * - `DATABASE_LEVEL`: failed trajectories that were never augmented, and beyond
 *   `keepPerPath` per step path the lowest-utility ones;
 * - `EXEMPLAR_LEVEL`: trajectories with utility below `pruneBelow` (augmented ones are kept:
 *   they carry their correction);
 * - `HYBRID`: both.
 */
export function curationPrunes(
  library: readonly Trajectory[],
  scores: Map<string, number>,
  strategy: CurationStrategy,
  policy: CurationPolicy,
): string[] {
  if (strategy === 'ACCUMULATE') return [];
  const pruned = new Set<string>();
  if (strategy === 'DATABASE_LEVEL' || strategy === 'HYBRID') {
    const order = new Map(library.map((t, i) => [t.trajectoryId, i]));
    const perPath = new Map<string, number>();
    for (const t of library) if (t.state === 'FAILED' || t.state === 'PENDING') pruned.add(t.trajectoryId);
    for (const t of [...library].sort(byUtility(scores, order))) {
      if (pruned.has(t.trajectoryId)) continue;
      const path = pathSignature(t.steps);
      const n = (perPath.get(path) ?? 0) + 1;
      perPath.set(path, n);
      if (n > policy.keepPerPath) pruned.add(t.trajectoryId);
    }
  }
  if (strategy === 'EXEMPLAR_LEVEL' || strategy === 'HYBRID') {
    for (const t of library) {
      if (t.state !== 'AUGMENTED' && (scores.get(t.trajectoryId) ?? 0) < policy.pruneBelow)
        pruned.add(t.trajectoryId);
    }
  }
  return library.filter((t) => pruned.has(t.trajectoryId)).map((t) => t.trajectoryId);
}

/** Mean reward of trajectories, rounded to 4 decimals (0 when there are none). */
export function meanReward(list: readonly Pick<Trajectory, 'reward'>[]): number {
  if (list.length === 0) return 0;
  return round4(list.reduce((s, t) => s + t.reward, 0) / list.length);
}

/** The exemplar form of a trajectory (seed §5.2 field names; steps summarised). */
export function exemplarView(
  t: Trajectory,
  utilityScore: number,
  usageCount: number,
  summarize: (s: JsonObject) => JsonObject,
): JsonObject {
  const view: JsonObject = {
    trajectoryId: t.trajectoryId,
    input: t.input,
    output: t.output,
    steps: t.steps.map(summarize),
    reward: t.reward,
    utilityScore,
    usageCount,
    peerId: t.peerId,
    state: t.state,
  };
  if (t.augmentation !== null) view['feedback'] = [...t.augmentation.feedback];
  return view;
}
