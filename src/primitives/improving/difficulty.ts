/**
 * Task difficulty from pass rates (seed 003 §5.2, after Agent0, arXiv:2511.16043): the pass
 * rate p̂ of a task is estimated from the recorded attempts most similar to its input, and the
 * task is TOO_EASY when p̂ > 0.8, TOO_HARD when p̂ < 0.3, and FRONTIER in between — the tasks a
 * curriculum should train on.
 */
import type { JsonObject, JsonValue } from '../../core/json.js';
import { jaccard, jsonTokens, type Trajectory } from './trajectory.js';

/** The difficulty classes of the seed. */
export const TASK_DIFFICULTIES = ['TOO_EASY', 'FRONTIER', 'TOO_HARD'] as const;

/** A difficulty class. */
export type TaskDifficulty = (typeof TASK_DIFFICULTIES)[number];

/** p̂ above this is TOO_EASY. */
export const TOO_EASY_ABOVE = 0.8;
/** p̂ below this is TOO_HARD. */
export const TOO_HARD_BELOW = 0.3;

/** The class of a pass rate. */
export function difficultyOf(passRate: number): TaskDifficulty {
  if (passRate > TOO_EASY_ABOVE) return 'TOO_EASY';
  if (passRate < TOO_HARD_BELOW) return 'TOO_HARD';
  return 'FRONTIER';
}

function round4(value: number): number {
  return Math.round(value * 10_000) / 10_000;
}

/**
 * Assesses a task: the `samples` recorded attempts of its task type most similar to `input`
 * (Jaccard of the word tokens of the inputs; ties: newer first) are the samples, a pass is an
 * attempt whose state is SUCCESS (an augmented attempt was a failure), and p̂ = passes / samples.
 * With no recorded attempt, p̂ is the uninformative 0.5 and `sampleSize` is 0.
 */
export function assessDifficulty(
  library: readonly Trajectory[],
  input: JsonValue,
  samples: number,
): JsonObject {
  const tokens = jsonTokens(input);
  const ranked = library
    .map((t, i) => ({ t, i, sim: jaccard(tokens, jsonTokens(t.input)) }))
    .sort((a, b) => b.sim - a.sim || b.i - a.i)
    .slice(0, samples);
  const n = ranked.length;
  const passes = ranked.filter((r) => r.t.state === 'SUCCESS').length;
  const passRate = n === 0 ? 0.5 : round4(passes / n);
  const difficulty = difficultyOf(passRate);
  const basis =
    n === 0
      ? 'no recorded attempt of this task type'
      : `${passes} of ${n} similar recorded attempt${n === 1 ? '' : 's'} succeeded`;
  let recommendation: string;
  switch (difficulty) {
    case 'TOO_EASY':
      recommendation = `${basis} (p̂ ${passRate} > ${TOO_EASY_ABOVE}): too easy to learn from; run it with exemplars and spend training on harder tasks.`;
      break;
    case 'TOO_HARD':
      recommendation = `${basis} (p̂ ${passRate} < ${TOO_HARD_BELOW}): too hard for now; decompose it into subtasks or augment the failed attempts (improving.augment) before retrying.`;
      break;
    default:
      recommendation =
        n === 0
          ? `${basis}: treat it as frontier; attempt it and record the trajectory so its pass rate can be measured.`
          : `${basis} (p̂ ${passRate} in [${TOO_HARD_BELOW}, ${TOO_EASY_ABOVE}]): frontier task, the most useful to train on; attempt it with exemplars and record the trajectory.`;
  }
  return { difficulty, passRate, recommendation, sampleSize: n };
}
