/**
 * Trajectories (seed 003 §5.2): recorded execution paths — task type, input, output, steps,
 * reward — kept in a per-tenant experience library. This module holds the record, the
 * validation whose failure is `TRAJECTORY_REJECTED` (−32008), the PII redaction applied before
 * anything is stored or shared, and the pure helpers (content digest, step summaries, the
 * similarity used for diversity and difficulty).
 */
import { canonicalizeJcs } from '../../core/canonical/jcs.js';
import { PlexusError } from '../../core/errors.js';
import { sha256Hex } from '../../core/hash.js';
import { isJsonObject, type JsonObject, type JsonValue } from '../../core/json.js';
import { redactPiiDeep } from '../guard/pii.js';

/** The trajectory states of the seed. */
export const TRAJECTORY_STATES = ['PENDING', 'SUCCESS', 'FAILED', 'AUGMENTED'] as const;

/** A trajectory state. */
export type TrajectoryState = (typeof TRAJECTORY_STATES)[number];

/** Where a trajectory came from. */
export type TrajectoryOrigin = 'local' | 'gossip';

/** What augmentation added to a trajectory (SiriuS: feedback, regeneration, rephrasing). */
export interface Augmentation {
  /** `FEEDBACK_ONLY` or `FULL_PIPELINE`. */
  readonly mode: string;
  /** Concrete critiques of the attempt. */
  readonly feedback: readonly string[];
  /** The corrected step path (`FULL_PIPELINE` only), as step summaries. */
  readonly revisedSteps: readonly JsonObject[] | null;
  /** The trajectory the correction follows, when one exists. */
  readonly referenceId: string | null;
  /** The attempt rephrased as a lesson (`FULL_PIPELINE` only). */
  readonly rephrased: string | null;
  readonly at: string;
}

/** A trajectory in the library. Every string in it has been PII-redacted. */
export interface Trajectory {
  readonly trajectoryId: string;
  readonly tenant: string | null;
  readonly taskType: string;
  readonly input: JsonValue;
  readonly output: JsonValue;
  readonly steps: readonly JsonObject[];
  readonly reward: number;
  readonly metadata: JsonObject | null;
  readonly state: TrajectoryState;
  /** The contributor (this node's peer id, or the gossiping peer's). */
  readonly peerId: string;
  readonly origin: TrajectoryOrigin;
  /** SHA-256 of the RFC 8785 form of `{taskType, input, output, steps, reward}` (duplicate detection). */
  readonly digest: string;
  readonly recordedAt: string;
  readonly usageCount: number;
  readonly gossipedTo: number;
  readonly augmentation: Augmentation | null;
}

/** The content a trajectory is recorded from (params of `recordTrajectory`, or a gossip message). */
export interface TrajectoryContent {
  readonly taskType: string;
  readonly input: JsonValue;
  readonly output: JsonValue;
  readonly steps: readonly JsonValue[];
  readonly reward: number;
  readonly metadata?: JsonValue;
}

/** Most steps a trajectory may have. */
export const MAX_STEPS = 1000;

/** Largest trajectory accepted, bytes of its JSON text. */
export const MAX_TRAJECTORY_BYTES = 256 * 1024;

/** Task types: letters, digits and `. _ : / -`, 1–128 characters (they name gossip topics). */
export const TASK_TYPE_PATTERN = '^[A-Za-z0-9][A-Za-z0-9._:/-]{0,127}$';

/**
 * Checks a trajectory. Failing checks are reported together.
 *
 * @throws PlexusError `TRAJECTORY_REJECTED` with `details.problems[{pointer, message}]` when
 *   the task type is malformed, there are no steps or more than {@link MAX_STEPS}, a step is
 *   not an object with a non-empty `action`, a `duration` is negative, the reward is outside
 *   [0, 1], `metadata` is not an object, `metadata.totalDuration` is negative, or the whole is
 *   larger than {@link MAX_TRAJECTORY_BYTES}.
 */
export function validateTrajectory(content: TrajectoryContent): void {
  const problems: { pointer: string; message: string }[] = [];
  const add = (pointer: string, message: string): void => {
    problems.push({ pointer, message });
  };
  if (typeof content.taskType !== 'string' || !new RegExp(TASK_TYPE_PATTERN).test(content.taskType)) {
    add('/taskType', 'must be 1–128 letters, digits or . _ : / - starting with a letter or digit');
  }
  if (!Array.isArray(content.steps) || content.steps.length === 0)
    add('/steps', 'a trajectory needs at least one step');
  else if (content.steps.length > MAX_STEPS)
    add('/steps', `has ${content.steps.length} steps (at most ${MAX_STEPS})`);
  else {
    content.steps.forEach((step, i) => {
      if (!isJsonObject(step)) {
        add(`/steps/${i}`, 'must be an object');
        return;
      }
      const action = step['action'];
      if (typeof action !== 'string' || action.trim() === '')
        add(`/steps/${i}/action`, 'must be a non-empty string');
      const duration = step['duration'];
      if (duration !== undefined && (typeof duration !== 'number' || duration < 0)) {
        add(`/steps/${i}/duration`, 'must be a non-negative number (ms)');
      }
      const tool = step['tool'];
      if (tool !== undefined && typeof tool !== 'string') add(`/steps/${i}/tool`, 'must be a string');
    });
  }
  if (typeof content.reward !== 'number' || !(content.reward >= 0 && content.reward <= 1)) {
    add('/reward', 'must be a number from 0 to 1');
  }
  const metadata = content.metadata;
  if (metadata !== undefined && metadata !== null) {
    if (!isJsonObject(metadata)) add('/metadata', 'must be an object');
    else {
      const total = metadata['totalDuration'];
      if (total !== undefined && (typeof total !== 'number' || total < 0)) {
        add('/metadata/totalDuration', 'must be a non-negative number (ms)');
      }
    }
  }
  if (problems.length === 0) {
    const size = Buffer.byteLength(JSON.stringify(content), 'utf8');
    if (size > MAX_TRAJECTORY_BYTES) add('', `is ${size} bytes (at most ${MAX_TRAJECTORY_BYTES})`);
  }
  if (problems.length > 0) {
    const first = problems[0];
    throw new PlexusError(
      'TRAJECTORY_REJECTED',
      `trajectory rejected: ${first === undefined ? '' : `${first.pointer || '/'} ${first.message}`}${problems.length > 1 ? ` (and ${problems.length - 1} more)` : ''}`,
      { details: { problems } },
    );
  }
}

/** The content with every string PII-redacted (object keys and numbers are kept). */
export function redactTrajectory(content: TrajectoryContent): {
  readonly input: JsonValue;
  readonly output: JsonValue;
  readonly steps: JsonObject[];
  readonly metadata: JsonObject | null;
} {
  const metadata =
    content.metadata === undefined || content.metadata === null ? null : redactPiiDeep(content.metadata);
  return {
    input: redactPiiDeep(content.input),
    output: redactPiiDeep(content.output),
    steps: content.steps.map((s) => redactPiiDeep(s) as JsonObject),
    metadata: isJsonObject(metadata) ? metadata : null,
  };
}

/** The duplicate-detection digest of (redacted) content. */
export function trajectoryDigest(content: {
  readonly taskType: string;
  readonly input: JsonValue;
  readonly output: JsonValue;
  readonly steps: readonly JsonObject[];
  readonly reward: number;
}): string {
  return sha256Hex(
    canonicalizeJcs({
      taskType: content.taskType,
      input: content.input,
      output: content.output,
      steps: content.steps,
      reward: content.reward,
    }),
  );
}

/** A step as exemplars show it: `action`, and `tool` and `duration` when present (seed §5.2). */
export function stepSummary(step: JsonObject): JsonObject {
  const out: JsonObject = { action: step['action'] ?? '' };
  if (typeof step['tool'] === 'string') out['tool'] = step['tool'];
  if (typeof step['duration'] === 'number') out['duration'] = step['duration'];
  return out;
}

/** A step's label: `action (tool)` or `action`. */
export function stepLabel(step: JsonObject): string {
  const action = typeof step['action'] === 'string' ? step['action'] : '?';
  const tool = step['tool'];
  return typeof tool === 'string' && tool !== '' ? `${action} (${tool})` : action;
}

/** The path signature of a trajectory: its step labels joined by ` → `. */
export function pathSignature(steps: readonly JsonObject[]): string {
  return steps.map(stepLabel).join(' → ');
}

/** Total time of a trajectory: `metadata.totalDuration` when given, else the sum of step durations (undefined when none). */
export function totalDuration(t: Pick<Trajectory, 'steps' | 'metadata'>): number | undefined {
  const declared = t.metadata?.['totalDuration'];
  if (typeof declared === 'number') return declared;
  let sum = 0;
  let any = false;
  for (const s of t.steps) {
    const d = s['duration'];
    if (typeof d === 'number') {
      sum += d;
      any = true;
    }
  }
  return any ? sum : undefined;
}

/** The lower-case word tokens of every string, key and number in a JSON value. */
export function jsonTokens(value: JsonValue, into: Set<string> = new Set()): Set<string> {
  if (typeof value === 'string') {
    for (const w of value.toLowerCase().split(/[^\p{L}\p{N}]+/u)) if (w !== '') into.add(w);
  } else if (typeof value === 'number') into.add(String(value));
  else if (Array.isArray(value)) for (const v of value) jsonTokens(v, into);
  else if (isJsonObject(value)) {
    for (const [k, v] of Object.entries(value)) {
      into.add(k.toLowerCase());
      jsonTokens(v, into);
    }
  }
  return into;
}

/** Jaccard similarity of two token sets (1 when both are empty). */
export function jaccard(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  if (a.size === 0 && b.size === 0) return 1;
  let shared = 0;
  for (const x of a) if (b.has(x)) shared++;
  return shared / (a.size + b.size - shared);
}
