/**
 * Supervision tree specifications (seed 002 §11.3, after Erlang/OTP): a supervisor has a
 * strategy (`one-for-one`, `one-for-all`, `rest-for-one`), a restart intensity (at most
 * `maxRestarts` restarts inside a sliding `periodMs`) and ordered children, each a worker
 * (`ChildSpec`) or another supervisor. This module holds the types, their checks and the pure
 * choice of which children a strategy restarts.
 */
import { PlexusError } from '../../core/errors.js';

/** How a supervisor answers the failure of one child. */
export type SupervisionStrategy = 'one-for-one' | 'one-for-all' | 'rest-for-one';

/** The strategies, in the seed's order. */
export const SUPERVISION_STRATEGIES: readonly SupervisionStrategy[] = [
  'one-for-one',
  'one-for-all',
  'rest-for-one',
];

/**
 * When a child is restarted (OTP's restart types): `permanent` always; `transient` only after
 * an abnormal exit (a failure); `temporary` never ("let it crash": it is removed).
 */
export type ChildRestart = 'permanent' | 'transient' | 'temporary';

/** A worker under supervision (a handler, an agent instance). */
export interface ChildSpec {
  /** Unique in the whole tree. */
  readonly id: string;
  /**
   * The restart type; the seed's `restart=True` is `permanent`, `restart=False` `temporary`.
   * @default 'permanent'
   */
  readonly restart?: ChildRestart | boolean;
}

/** A supervisor and its children, in start order. */
export interface SupervisorSpec {
  /** Unique in the whole tree. */
  readonly id: string;
  readonly strategy: SupervisionStrategy;
  /** Most restarts inside `periodMs`; one more failure escalates to the parent. */
  readonly maxRestarts: number;
  /** The sliding window of `maxRestarts`, ms (the seed's `restart_period`). */
  readonly periodMs: number;
  /** Workers and sub-supervisors, started in this order and stopped in the reverse order. */
  readonly children: readonly (ChildSpec | SupervisorSpec)[];
  /** How the parent restarts this subtree when it escalates. @default 'permanent' */
  readonly restart?: ChildRestart | boolean;
}

/** True when `spec` is a supervisor (it has `children`). */
export function isSupervisorSpec(spec: ChildSpec | SupervisorSpec): spec is SupervisorSpec {
  return 'children' in spec;
}

/** The restart type a spec's `restart` field means. */
export function restartTypeOf(restart: ChildRestart | boolean | undefined): ChildRestart {
  if (restart === undefined || restart === true) return 'permanent';
  if (restart === false) return 'temporary';
  return restart;
}

function bad(message: string, pointer: string): PlexusError {
  return new PlexusError('INVALID_PARAMS', message, { details: { pointer } });
}

function checkRestart(value: unknown, pointer: string): void {
  if (value === undefined || typeof value === 'boolean') return;
  if (value !== 'permanent' && value !== 'transient' && value !== 'temporary') {
    throw bad(`restart must be permanent, transient, temporary, true or false`, `${pointer}/restart`);
  }
}

function checkNode(node: unknown, pointer: string, seen: Set<string>): void {
  if (typeof node !== 'object' || node === null) throw bad('a child must be an object', pointer);
  const n = node as Record<string, unknown>;
  if (typeof n['id'] !== 'string' || n['id'] === '')
    throw bad('id must be a non-empty string', `${pointer}/id`);
  if (seen.has(n['id']))
    throw bad(`id ${JSON.stringify(n['id'])} is used twice in the tree`, `${pointer}/id`);
  seen.add(n['id']);
  checkRestart(n['restart'], pointer);
  if (!('children' in n)) return;
  const strategy = n['strategy'];
  if (typeof strategy !== 'string' || !(SUPERVISION_STRATEGIES as readonly string[]).includes(strategy)) {
    throw bad(`strategy must be one of ${SUPERVISION_STRATEGIES.join(', ')}`, `${pointer}/strategy`);
  }
  const max = n['maxRestarts'];
  if (typeof max !== 'number' || !Number.isSafeInteger(max) || max < 0) {
    throw bad('maxRestarts must be a whole number ≥ 0', `${pointer}/maxRestarts`);
  }
  const period = n['periodMs'];
  if (typeof period !== 'number' || !Number.isSafeInteger(period) || period < 1) {
    throw bad('periodMs must be a whole number of ms ≥ 1', `${pointer}/periodMs`);
  }
  const children = n['children'];
  if (!Array.isArray(children)) throw bad('children must be an array', `${pointer}/children`);
  children.forEach((child: unknown, i) => {
    checkNode(child, `${pointer}/children/${i}`, seen);
  });
}

/**
 * Checks a supervision tree specification: ids non-empty and unique across the tree, known
 * strategies and restart types, `maxRestarts` ≥ 0 and `periodMs` ≥ 1 whole numbers.
 *
 * @throws PlexusError `INVALID_PARAMS` with `details.pointer` at the first bad field.
 */
export function checkSupervisorSpec(spec: SupervisorSpec): SupervisorSpec {
  if (typeof spec !== 'object' || (spec as unknown) === null || !('children' in spec)) {
    throw bad('the root of a supervision tree must be a supervisor (with children)', '');
  }
  checkNode(spec, '', new Set());
  return spec;
}

/**
 * The positions a strategy restarts when the child at `failed` fails, in start order:
 * `one-for-one` that child; `one-for-all` every child; `rest-for-one` that child and every
 * child started after it. Pure.
 *
 * @throws PlexusError `INVALID_PARAMS` when `failed` is not a position of `count` children.
 */
export function restartGroup(strategy: SupervisionStrategy, count: number, failed: number): number[] {
  if (!Number.isSafeInteger(failed) || failed < 0 || failed >= count) {
    throw bad(`child position ${failed} is not one of ${count} children`, '/failed');
  }
  const all = Array.from({ length: count }, (_, i) => i);
  if (strategy === 'one-for-one') return [failed];
  if (strategy === 'one-for-all') return all;
  return all.slice(failed);
}

/**
 * Counts one restart at time `t` in a sliding window: prunes the times older than
 * `periodMs`, and records `t` unless `maxRestarts` restarts are already inside the window.
 * Returns the pruned list and whether the restart is allowed (false = intensity exceeded).
 * Pure.
 */
export function countRestart(
  times: readonly number[],
  t: number,
  limits: { readonly maxRestarts: number; readonly periodMs: number },
): { readonly allowed: boolean; readonly times: readonly number[] } {
  const inside = times.filter((at) => at > t - limits.periodMs);
  if (inside.length >= limits.maxRestarts) return { allowed: false, times: inside };
  return { allowed: true, times: [...inside, t] };
}
