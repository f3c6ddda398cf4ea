/**
 * The `supervision:` section of `plexus.yaml`: a supervision tree over the node's agents
 * (seed 002 §11.3; docs/supervision.md), checked field by field with errors that name the
 * bad key (`supervision.children[1].strategy`).
 *
 * ```yaml
 * supervision:
 *   id: town                    # the root supervisor's name (default: root)
 *   strategy: one-for-one       # one-for-one | one-for-all | rest-for-one
 *   maxRestarts: 3              # at most 3 restarts…
 *   periodMs: 300000            # …in any 5 minutes; one more escalates (the root gives up)
 *   children:
 *     - echo                    # an agent id
 *     - { id: text, restart: temporary }
 *     - id: numbers             # a nested supervisor
 *       strategy: rest-for-one
 *       maxRestarts: 2
 *       periodMs: 60000
 *       children: [math, demo]
 * ```
 *
 * Whether each agent id is hosted on the node is checked when the node starts (the runtime
 * knows its agents), with an error naming the same key.
 */
import { PlexusError } from '../core/errors.js';
import {
  SUPERVISION_STRATEGIES,
  type ChildRestart,
  type ChildSpec,
  type SupervisionStrategy,
  type SupervisorSpec,
} from '../runtime/index.js';

/** The root supervisor's id when the configuration names none. */
export const DEFAULT_SUPERVISOR_ID = 'root';

const SUPERVISOR_FIELDS = ['id', 'strategy', 'maxRestarts', 'periodMs', 'children', 'restart'];
const WORKER_FIELDS = ['id', 'restart'];
const RESTART_TYPES = ['permanent', 'transient', 'temporary'];
/** The longest restart window accepted: one day. */
const MAX_PERIOD_MS = 86_400_000;

function show(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  return JSON.stringify(value);
}

/** Parses the `supervision` section (`value`) of configuration `source`. */
class Parser {
  readonly #seen = new Set<string>();
  constructor(readonly source: string) {}

  fail(field: string, message: string): never {
    throw new PlexusError('INVALID_PARAMS', `${this.source}: "${field}" ${message}`, {
      details: { field },
    });
  }

  id(field: string, value: unknown): string {
    if (typeof value !== 'string' || value.trim() === '') {
      this.fail(field, `must be a non-empty string (an agent or supervisor id), got ${show(value)}`);
    }
    if (this.#seen.has(value)) {
      this.fail(
        field,
        `${JSON.stringify(value)} appears twice in the tree; each agent and supervisor id may appear once`,
      );
    }
    this.#seen.add(value);
    return value;
  }

  restart(field: string, value: unknown): ChildRestart | boolean {
    if (typeof value === 'boolean') return value;
    if (typeof value !== 'string' || !RESTART_TYPES.includes(value)) {
      this.fail(field, `must be permanent, transient, temporary, true or false, got ${show(value)}`);
    }
    return value as ChildRestart;
  }

  whole(field: string, value: unknown, min: number, max: number): number {
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min || value > max) {
      this.fail(field, `must be a whole number from ${min} to ${max}, got ${show(value)}`);
    }
    return value;
  }

  mapping(field: string, value: unknown, allowed: readonly string[]): Record<string, unknown> {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      this.fail(field, `must be a mapping, got ${show(value)}`);
    }
    for (const key of Object.keys(value)) {
      if (!allowed.includes(key))
        this.fail(`${field}.${key}`, `is not a known setting; known: ${allowed.join(', ')}`);
    }
    return value as Record<string, unknown>;
  }

  child(field: string, value: unknown): ChildSpec | SupervisorSpec {
    if (typeof value === 'string') return { id: this.id(field, value) };
    if (typeof value === 'object' && value !== null && !Array.isArray(value) && 'children' in value) {
      return this.supervisor(field, value, false);
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      this.fail(
        field,
        `must be an agent id or a mapping (an agent { id, restart } or a supervisor with children), got ${show(value)}`,
      );
    }
    const o = this.mapping(field, value, WORKER_FIELDS);
    const id = this.id(`${field}.id`, o['id']);
    return o['restart'] === undefined
      ? { id }
      : { id, restart: this.restart(`${field}.restart`, o['restart']) };
  }

  supervisor(field: string, value: unknown, root: boolean): SupervisorSpec {
    const o = this.mapping(
      field,
      value,
      root ? SUPERVISOR_FIELDS.filter((f) => f !== 'restart') : SUPERVISOR_FIELDS,
    );
    const id =
      o['id'] === undefined && root
        ? this.id(`${field}.id`, DEFAULT_SUPERVISOR_ID)
        : this.id(`${field}.id`, o['id']);
    const strategy = o['strategy'];
    if (typeof strategy !== 'string' || !(SUPERVISION_STRATEGIES as readonly string[]).includes(strategy)) {
      this.fail(
        `${field}.strategy`,
        `must be one of ${SUPERVISION_STRATEGIES.join(', ')}, got ${show(strategy)}`,
      );
    }
    const maxRestarts = this.whole(`${field}.maxRestarts`, o['maxRestarts'], 0, 1_000_000);
    const periodMs = this.whole(`${field}.periodMs`, o['periodMs'], 1, MAX_PERIOD_MS);
    const list = o['children'];
    if (!Array.isArray(list) || list.length === 0) {
      this.fail(
        `${field}.children`,
        `must be a non-empty list of agent ids and supervisors, got ${show(list)}`,
      );
    }
    const children = list.map((c: unknown, i) => this.child(`${field}.children[${i}]`, c));
    return {
      id,
      strategy: strategy as SupervisionStrategy,
      maxRestarts,
      periodMs,
      children,
      ...(o['restart'] === undefined ? {} : { restart: this.restart(`${field}.restart`, o['restart']) }),
    };
  }
}

/**
 * Checks the `supervision` section of a configuration and returns the tree spec.
 *
 * @param source names the configuration in error messages (the file path).
 * @throws PlexusError `INVALID_PARAMS` naming the first bad key (`details.field`, e.g.
 *   `supervision.children[0].maxRestarts`).
 */
export function parseSupervisionConfig(value: unknown, source = 'configuration'): SupervisorSpec {
  return new Parser(source).supervisor('supervision', value, true);
}
