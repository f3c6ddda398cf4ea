/**
 * The Reflector of the Generator / Reflector / Curator pattern (seed 003 §5.1): it reads one
 * finished execution and the playbook and proposes new bullets and bullets to prune. The
 * learning primitive calls it once, in the `learning.reflect` handler, checks its proposal,
 * and writes the decided bullets into the `learning.reflected` event — a replay never calls
 * a reflector again.
 *
 * Implementations: {@link deterministicReflector} (the default, a rule-based analysis of steps,
 * durations, outcome and reward) and {@link openAiChatReflector} (any OpenAI-compatible chat
 * endpoint).
 */
import { PlexusError } from '../../core/errors.js';
import { isJsonObject, type JsonObject, type JsonValue } from '../../core/json.js';
import { MAX_BULLET_CHARS, isSection, type PlaybookSection } from './playbook.js';

/** One step of an execution (seed: `{ action, tool, duration }`; other fields are kept). */
export interface ExecutionStep extends JsonObject {
  /** What the step did (`search`). */
  action: string;
}

/**
 * A finished execution as `learning.reflect` receives it. The seed's fields are `input`,
 * `output`, `steps`, `outcome` and `reward`; `usedBullets` (ids of the playbook bullets the
 * generator was given) and `feedback` (text from a judge or a user) are Plexus additions.
 */
export interface Execution extends JsonObject {
  steps: ExecutionStep[];
  outcome: string;
}

/** A bullet as a reflector sees it. */
export interface ReflectorBullet {
  readonly id: string;
  readonly section: PlaybookSection;
  readonly content: string;
  readonly helpfulCount: number;
  readonly harmfulCount: number;
}

/** What a reflector is asked. */
export interface ReflectionRequest {
  readonly playbookId: string;
  readonly execution: Execution;
  /** The playbook's current bullets, in the order they were added. */
  readonly bullets: readonly ReflectorBullet[];
}

/** A proposed bullet (the primitive gives it its id). */
export interface ProposedBullet {
  readonly section: PlaybookSection;
  readonly content: string;
}

/** What a reflector proposes. */
export interface ReflectionProposal {
  readonly newBullets: readonly ProposedBullet[];
  /** Ids of existing bullets to remove. Unknown ids are ignored by the primitive. */
  readonly prune: readonly string[];
}

/** Options of {@link Reflector.reflect}. */
export interface ReflectOptions {
  /** Aborted when the job is cancelled or times out. */
  readonly signal?: AbortSignal;
}

/** A pluggable reflector. */
export interface Reflector {
  /** A short name recorded in every `learning.reflected` event (`deterministic`, `openai-chat:gpt-4o-mini`). */
  readonly name: string;
  /**
   * Proposes bullets for one execution.
   * @throws PlexusError when the reflection cannot be made (the adapter's codes).
   */
  reflect(request: ReflectionRequest, options?: ReflectOptions): Promise<ReflectionProposal>;
}

/** Most bullets one reflection may add. */
export const MAX_NEW_BULLETS = 20;

/** How an execution's outcome is read. */
export type Verdict = 'success' | 'failure' | 'partial';

const SUCCESS_WORDS = new Set([
  'success',
  'succeeded',
  'successful',
  'ok',
  'completed',
  'complete',
  'done',
  'pass',
  'passed',
]);
const FAILURE_WORDS = new Set([
  'failure',
  'failed',
  'fail',
  'error',
  'errored',
  'timeout',
  'timed_out',
  'cancelled',
  'canceled',
  'aborted',
  'rejected',
]);

/**
 * The verdict on an execution: its `outcome` word when it is a known one (`success`,
 * `failed`, `error`, …), otherwise its `reward` (≥ 0.7 success, < 0.3 failure), otherwise
 * `partial`.
 */
export function verdictOf(execution: Pick<Execution, 'outcome'> & { readonly reward?: JsonValue }): Verdict {
  const word = execution.outcome.trim().toLowerCase();
  if (SUCCESS_WORDS.has(word)) return 'success';
  if (FAILURE_WORDS.has(word)) return 'failure';
  const reward = execution.reward;
  if (typeof reward === 'number') {
    if (reward >= 0.7) return 'success';
    if (reward < 0.3) return 'failure';
  }
  return 'partial';
}

/**
 * Checks a reflector's answer: an object with `newBullets` (at most {@link MAX_NEW_BULLETS},
 * each a known section and non-empty content of at most {@link MAX_BULLET_CHARS} characters)
 * and `prune` (strings; absent means none). Content is trimmed.
 *
 * @throws PlexusError `INTERNAL` naming the reflector and the offending field (a reflector
 *   that answers garbage is a bug or a misbehaving backend, never the caller's fault).
 */
export function checkProposal(value: unknown, reflector: string): ReflectionProposal {
  const bad = (why: string): PlexusError =>
    new PlexusError('INTERNAL', `reflector ${reflector} answered an unusable proposal: ${why}`, {
      details: { reflector, reason: why },
    });
  if (!isJsonObject(value)) throw bad('it is not an object');
  const v = value;
  const list = v['newBullets'] ?? [];
  if (!Array.isArray(list)) throw bad('newBullets is not an array');
  if (list.length > MAX_NEW_BULLETS)
    throw bad(`newBullets has ${list.length} entries (at most ${MAX_NEW_BULLETS})`);
  const newBullets: ProposedBullet[] = list.map((item, i) => {
    if (!isJsonObject(item)) throw bad(`newBullets/${i} is not an object`);
    const section = item['section'];
    const content = item['content'];
    if (!isSection(section)) throw bad(`newBullets/${i}/section must be one of str, cal, mis, fbk`);
    if (typeof content !== 'string' || content.trim() === '')
      throw bad(`newBullets/${i}/content must be a non-empty string`);
    if (content.trim().length > MAX_BULLET_CHARS)
      throw bad(`newBullets/${i}/content is longer than ${MAX_BULLET_CHARS} characters`);
    return { section, content: content.trim() };
  });
  const prune = v['prune'] ?? [];
  if (!Array.isArray(prune) || prune.some((p) => typeof p !== 'string'))
    throw bad('prune is not an array of bullet ids');
  return { newBullets, prune: prune as string[] };
}
