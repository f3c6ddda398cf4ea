/**
 * Deterministic augmentation of failed trajectories (seed 003 §5.2 AugmentationMode, after
 * SiriuS, arXiv:2502.04780: feedback → regeneration → rephrasing). Without a model in the
 * loop, each stage is a concrete analysis against the library:
 *
 * - feedback: critiques naming the reward gap to the best successful attempt of the task
 *   type (the reference), steps the reference ran that this attempt lacks, steps it ran that
 *   the reference did not, steps much slower than the reference's, steps that reported an
 *   error, and repeated steps;
 * - regeneration (`FULL_PIPELINE`): the revised step path — the reference's steps when there
 *   is one, otherwise this attempt's steps without the failed and repeated ones;
 * - rephrasing (`FULL_PIPELINE`): the attempt restated as one lesson line.
 *
 * The result is computed in the handler and written into the `improving.augmented` event.
 */
import type { JsonObject } from '../../core/json.js';
import { isJsonObject } from '../../core/json.js';
import { stepLabel, stepSummary, type Augmentation, type Trajectory } from './trajectory.js';

/** The augmentation modes of the seed. */
export const AUGMENTATION_MODES = ['NONE', 'FEEDBACK_ONLY', 'FULL_PIPELINE'] as const;

/** An augmentation mode. */
export type AugmentationMode = (typeof AUGMENTATION_MODES)[number];

/** A step is "much slower" than the reference's same step at this ratio. */
export const SLOW_RATIO = 2;

function stepFailed(step: JsonObject): string | undefined {
  const error = step['error'];
  if (typeof error === 'string' && error.trim() !== '') return error.trim().slice(0, 200);
  if (isJsonObject(error))
    return typeof error['message'] === 'string' ? error['message'].slice(0, 200) : 'an error';
  const status = step['status'];
  return status === 'failed' || status === 'error' ? `status ${status}` : undefined;
}

function duration(step: JsonObject): number | undefined {
  const d = step['duration'];
  return typeof d === 'number' ? d : undefined;
}

/** The best successful trajectory of a library (highest utility, then reward, then newest) other than `exclude`. */
export function referenceOf(
  library: readonly Trajectory[],
  scores: Map<string, number>,
  exclude: string,
): Trajectory | undefined {
  let best: Trajectory | undefined;
  library.forEach((t) => {
    if (t.state !== 'SUCCESS' || t.trajectoryId === exclude) return;
    if (best === undefined) {
      best = t;
      return;
    }
    const d =
      (scores.get(t.trajectoryId) ?? 0) - (scores.get(best.trajectoryId) ?? 0) || t.reward - best.reward;
    if (d >= 0) best = t;
  });
  return best;
}

/**
 * Augments one trajectory.
 *
 * @param mode `FEEDBACK_ONLY` or `FULL_PIPELINE` (`NONE` never reaches here).
 */
export function augmentTrajectory(
  t: Trajectory,
  reference: Trajectory | undefined,
  mode: Exclude<AugmentationMode, 'NONE'>,
  at: string,
): Augmentation {
  const feedback: string[] = [];
  const labels = t.steps.map(stepLabel);
  if (reference === undefined) {
    feedback.push(
      `Reward ${t.reward.toFixed(2)}; no successful attempt of ${t.taskType} is recorded yet to compare with.`,
    );
  } else {
    const refLabels = reference.steps.map(stepLabel);
    feedback.push(
      `Reward ${t.reward.toFixed(2)} against ${reference.reward.toFixed(2)} for the best recorded attempt ${reference.trajectoryId}.`,
    );
    for (const label of refLabels) {
      if (!labels.includes(label))
        feedback.push(`Missing step: ${label}, which ${reference.trajectoryId} ran.`);
    }
    for (const label of new Set(labels)) {
      if (!refLabels.includes(label))
        feedback.push(`Extra step: ${label}, not in ${reference.trajectoryId}.`);
    }
    t.steps.forEach((step) => {
      const mine = duration(step);
      const theirs = reference.steps.find((r) => stepLabel(r) === stepLabel(step));
      const ref = theirs === undefined ? undefined : duration(theirs);
      if (mine !== undefined && ref !== undefined && ref > 0 && mine >= SLOW_RATIO * ref) {
        feedback.push(
          `${stepLabel(step)} took ${mine} ms, ${(mine / ref).toFixed(1)}× the ${ref} ms of ${reference.trajectoryId}.`,
        );
      }
    });
  }
  t.steps.forEach((step, i) => {
    const error = stepFailed(step);
    if (error !== undefined) feedback.push(`Step ${i + 1} ${stepLabel(step)} failed: ${error}.`);
  });
  const counts = new Map<string, number>();
  for (const label of labels) counts.set(label, (counts.get(label) ?? 0) + 1);
  for (const [label, n] of counts)
    if (n > 1) feedback.push(`${label} ran ${n} times; refine it instead of repeating it.`);

  if (mode === 'FEEDBACK_ONLY') {
    return {
      mode,
      feedback,
      revisedSteps: null,
      referenceId: reference?.trajectoryId ?? null,
      rephrased: null,
      at,
    };
  }
  let revisedSteps: JsonObject[];
  if (reference !== undefined) revisedSteps = reference.steps.map(stepSummary);
  else {
    const seen = new Set<string>();
    revisedSteps = t.steps
      .filter((step) => {
        const label = stepLabel(step);
        if (stepFailed(step) !== undefined || seen.has(label)) return false;
        seen.add(label);
        return true;
      })
      .map(stepSummary);
  }
  const revisedPath = revisedSteps.map(stepLabel).join(' → ') || '(no usable step)';
  const rephrased =
    `${t.taskType}: the attempt ${labels.join(' → ')} scored ${t.reward.toFixed(2)}; ` +
    (reference === undefined
      ? `retry as ${revisedPath}, without its failed and repeated steps.`
      : `follow ${revisedPath} as ${reference.trajectoryId} did (reward ${reference.reward.toFixed(2)}).`);
  return { mode, feedback, revisedSteps, referenceId: reference?.trajectoryId ?? null, rephrased, at };
}
