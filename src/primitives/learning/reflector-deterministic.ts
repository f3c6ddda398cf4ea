/**
 * The default reflector: a deterministic, rule-based analysis of one execution. It reads the
 * step path (actions and tools), the step durations, the outcome and the reward, and writes
 * concrete bullets that name them — never generic advice:
 *
 * - success → `str`: the path that worked, with its reward and time;
 * - failure → `mis`: the path to avoid, and the first step that reported an error;
 * - partial → `fbk`: the path gave a partial result, check its last step;
 * - two or more timed steps → `cal`: the time budget per step and in total;
 * - one step taking at least half the time → `str`: it is the bottleneck;
 * - a step that reported an error (`error`, or `status` failed/error) → `mis`;
 * - the same action and tool run more than once → `mis`;
 * - an execution `feedback` text → `fbk`.
 *
 * Pruning: after a success, `mis` bullets that said to avoid this same path are pruned; after
 * a failure, `str` bullets recommending this same path are pruned once their harmful votes
 * outnumber their helpful ones. The same execution and playbook always give the same proposal.
 */
import { isJsonObject, type JsonValue } from '../../core/json.js';
import type {
  ExecutionStep,
  ProposedBullet,
  ReflectionProposal,
  Reflector,
  ReflectorBullet,
} from './reflector.js';
import { verdictOf, type ReflectionRequest } from './reflector.js';

const TOPIC_KEYS = ['query', 'task', 'question', 'prompt', 'goal', 'instruction', 'text', 'title'];
const MAX_TOPIC = 80;
const MAX_QUOTE = 200;

function clip(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}

/** A short description of the task, from the input's first text field (`query`, `task`, …). */
function topicOf(input: JsonValue | undefined): string | undefined {
  if (typeof input === 'string' && input.trim() !== '') return clip(input, MAX_TOPIC);
  if (!isJsonObject(input)) return undefined;
  for (const key of TOPIC_KEYS) {
    const v = input[key];
    if (typeof v === 'string' && v.trim() !== '') return clip(v, MAX_TOPIC);
  }
  const keys = Object.keys(input).sort();
  return keys.length === 0 ? undefined : `inputs with ${keys.slice(0, 4).join(', ')}`;
}

function stepLabel(step: ExecutionStep): string {
  const tool = step['tool'];
  return typeof tool === 'string' && tool !== '' ? `${step.action} (${tool})` : step.action;
}

function durationOf(step: ExecutionStep): number | undefined {
  const d = step['duration'];
  return typeof d === 'number' && Number.isFinite(d) && d >= 0 ? d : undefined;
}

function stepError(step: ExecutionStep): string | undefined {
  const error = step['error'];
  if (typeof error === 'string' && error.trim() !== '') return clip(error, MAX_QUOTE);
  if (isJsonObject(error)) {
    const message = error['message'];
    return typeof message === 'string' ? clip(message, MAX_QUOTE) : 'an error';
  }
  const status = step['status'];
  if (status === 'failed' || status === 'error') return `status ${status}`;
  return undefined;
}

function pct(part: number, whole: number): number {
  return Math.round((part / whole) * 100);
}

/** The path of an execution as bullets write it: `search (web-search) → filter (relevance-scorer)`. */
export function pathOf(steps: readonly ExecutionStep[]): string {
  return steps.length === 0 ? '(no steps)' : steps.map(stepLabel).join(' → ');
}

function reflectOn(request: ReflectionRequest): ReflectionProposal {
  const { execution, bullets } = request;
  const steps = execution.steps;
  const path = pathOf(steps);
  const verdict = verdictOf(execution);
  const rewardValue = execution['reward'];
  const reward = typeof rewardValue === 'number' ? rewardValue : undefined;
  const rewardText = reward === undefined ? '' : `reward ${reward.toFixed(2)}, `;
  const topic = topicOf(execution['input']);
  const forTasks = topic === undefined ? 'for this task type' : `for tasks like "${topic}"`;
  const timed = steps
    .map((step) => ({ step, ms: durationOf(step) }))
    .filter((t): t is { step: ExecutionStep; ms: number } => t.ms !== undefined);
  const total = timed.reduce((sum, t) => sum + t.ms, 0);
  const timeText = timed.length === 0 ? `${steps.length} steps` : `${total} ms over ${steps.length} steps`;
  const errors = steps
    .map((step, i) => ({ step, i, error: stepError(step) }))
    .filter((e): e is { step: ExecutionStep; i: number; error: string } => e.error !== undefined);

  const out: ProposedBullet[] = [];
  if (verdict === 'success') {
    out.push({
      section: 'str',
      content: `${capital(forTasks)}, the path ${path} succeeded (${rewardText}${timeText}); reuse this order of steps.`,
    });
  } else if (verdict === 'failure') {
    const first = errors[0];
    const cause =
      first === undefined ? '' : ` Step ${first.i + 1} ${stepLabel(first.step)} reported "${first.error}".`;
    out.push({
      section: 'mis',
      content: `Avoid the path ${path} ${forTasks}: it ended in "${clip(execution.outcome, 40)}" (${rewardText}${timeText}).${cause}`,
    });
  } else {
    const last = steps[steps.length - 1];
    const check = last === undefined ? 'the output' : `the result of ${stepLabel(last)}`;
    out.push({
      section: 'fbk',
      content: `The path ${path} gave a partial result ${forTasks} (${rewardText}outcome "${clip(execution.outcome, 40)}"); check ${check} before returning it.`,
    });
  }
  if (timed.length >= 2 && total > 0) {
    const parts = [...timed]
      .sort((a, b) => b.ms - a.ms)
      .map((t) => `${stepLabel(t.step)} ${t.ms} ms (${pct(t.ms, total)}%)`);
    out.push({
      section: 'cal',
      content: `Time budget ${forTasks}: ${parts.join(', ')}; ${total} ms in total, so plan about ${Math.ceil(total / 100) * 100} ms.`,
    });
    const slowest = [...timed].sort((a, b) => b.ms - a.ms)[0];
    if (slowest !== undefined && slowest.ms * 2 >= total) {
      out.push({
        section: 'str',
        content: `${stepLabel(slowest.step)} is the bottleneck (${slowest.ms} of ${total} ms, ${pct(slowest.ms, total)}%); start it as early as possible or give it a faster tool.`,
      });
    }
  }
  for (const e of verdict === 'failure' ? errors.slice(1) : errors) {
    out.push({
      section: 'mis',
      content: `Step ${e.i + 1} ${stepLabel(e.step)} failed with "${e.error}"; check its parameters or add a fallback for it.`,
    });
  }
  const runs = new Map<string, number>();
  for (const step of steps) runs.set(stepLabel(step), (runs.get(stepLabel(step)) ?? 0) + 1);
  for (const [label, count] of runs) {
    if (count > 1) {
      out.push({
        section: 'mis',
        content: `${label} ran ${count} times in one execution; refine its parameters instead of repeating it.`,
      });
    }
  }
  const feedback = execution['feedback'];
  if (typeof feedback === 'string' && feedback.trim() !== '') {
    out.push({ section: 'fbk', content: `Feedback ${forTasks}: ${clip(feedback, MAX_QUOTE * 2)}` });
  }
  return { newBullets: out, prune: pruneFor(verdict, path, bullets) };
}

function capital(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function pruneFor(
  verdict: 'success' | 'failure' | 'partial',
  path: string,
  bullets: readonly ReflectorBullet[],
): string[] {
  if (verdict === 'success') {
    const marker = `Avoid the path ${path} for `;
    return bullets.filter((b) => b.section === 'mis' && b.content.startsWith(marker)).map((b) => b.id);
  }
  if (verdict === 'failure') {
    const marker = `the path ${path} succeeded`;
    return bullets
      .filter((b) => b.section === 'str' && b.content.includes(marker) && b.harmfulCount > b.helpfulCount)
      .map((b) => b.id);
  }
  return [];
}

/**
 * The deterministic reflector (the default of the learning primitive).
 *
 * @example
 * const primitive = learningPrimitive({ log }, { reflector: deterministicReflector() });
 */
export function deterministicReflector(): Reflector {
  return {
    name: 'deterministic',
    reflect: (request) => Promise.resolve(reflectOn(request)),
  };
}
