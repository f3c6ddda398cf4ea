/**
 * Fallback policies as data (seed 002 §6.3): named lists of steps, tried in order when the
 * primary route fails to deliver (a retryable transport failure only — an answer from the far
 * side, even an error, is never retried elsewhere).
 *
 * A step is one of
 * - `local-cache` — serve the last successful answer for the same tenant, verb and input,
 *   marked stale;
 * - `queue-for-sync` — record the request and deliver it when the target is reachable again
 *   (the caller gets a job id at once);
 * - `error` — give up, explaining what was tried;
 * - the name of a target group (`primary-region`, `local-llm`, `cloud-llm`: a list of targets
 *   in the config), or a target itself (`http://10.0.0.2:3100`, `local://summariser`).
 *
 * A request picks its policy with the envelope's `fallback_policy` (a policy name, or an inline
 * chain `a → b → c`), else the policy configured for its verb, else the default policy
 * (`default`, built in as `[error]`).
 */
import type { Envelope } from '../../core/envelope.js';
import { PlexusError } from '../../core/errors.js';
import { stripVerbVersion } from '../../core/verb-name.js';
import { parseTarget, policyNameOf, type RouteTarget } from './target.js';

/** The steps with a built-in meaning. */
export const BUILTIN_STEPS = ['local-cache', 'queue-for-sync', 'error'] as const;

/** The name of the policy used when nothing else is selected. */
export const DEFAULT_POLICY = 'default';

/** Fallback configuration (`fallback_policies` and `routing` in plexus.yaml). */
export interface FallbackConfig {
  /** Named policies: name → steps. `default` is `[error]` unless given. @default {} */
  readonly policies?: Readonly<Record<string, readonly string[]>>;
  /** The policy of each verb (name without `@version`). @default {} */
  readonly verbs?: Readonly<Record<string, string>>;
  /** Named target groups (peer regions, `local-llm`, `cloud-llm`): name → targets. @default {} */
  readonly groups?: Readonly<Record<string, readonly string[]>>;
  /** The policy of a request that names none. @default 'default' */
  readonly defaultPolicy?: string;
}

/** One resolved step. */
export type FallbackStep =
  | { readonly kind: 'local-cache' | 'queue-for-sync' | 'error'; readonly name: string }
  | { readonly kind: 'targets'; readonly name: string; readonly targets: readonly RouteTarget[] };

/** The policy chosen for one request. */
export interface SelectedPolicy {
  readonly name: string;
  readonly steps: readonly FallbackStep[];
}

/** Checked fallback policies. */
export interface FallbackPolicies {
  /**
   * The policy of `envelope`.
   * @throws PlexusError `INVALID_PARAMS` when the envelope names an unknown policy or step.
   */
  select(envelope: Envelope): SelectedPolicy;
  /** True when some policy uses `local-cache` (successful answers are then recorded). */
  readonly usesCache: boolean;
  /** The names of the configured policies, sorted. */
  readonly names: readonly string[];
}

const NAME = /^[a-z][a-z0-9_.-]*$/;
const CHAIN_SEPARATOR = /\s*(?:→|->|,)\s*/;

function invalid(message: string, field: string): PlexusError {
  return new PlexusError('INVALID_PARAMS', message, { details: { field } });
}

/**
 * Checks a fallback configuration.
 *
 * @throws PlexusError `INVALID_PARAMS` naming the field: a bad name, an empty policy, an
 *   unknown step, a bad target, a verb mapped to an unknown policy, a group that is also a
 *   built-in step.
 * @example
 * const policies = fallbackPolicies({ policies: { 'offline-first': ['local-cache', 'queue-for-sync'] } });
 */
export function fallbackPolicies(config: FallbackConfig = {}): FallbackPolicies {
  const groups = new Map<string, readonly RouteTarget[]>();
  for (const [name, targets] of Object.entries(config.groups ?? {})) {
    const field = `routing.groups.${name}`;
    if (!NAME.test(name)) throw invalid(`${field}: a group name must match ${NAME.source}`, field);
    if ((BUILTIN_STEPS as readonly string[]).includes(name)) {
      throw invalid(`${field}: "${name}" is a built-in step and cannot name a group`, field);
    }
    if (targets.length === 0) throw invalid(`${field}: a group needs at least one target`, field);
    groups.set(
      name,
      targets.map((t, i) => {
        try {
          return parseTarget(t);
        } catch (cause) {
          throw new PlexusError('INVALID_PARAMS', `${field}[${i}]: ${(cause as Error).message}`, {
            cause,
            details: { field: `${field}[${i}]` },
          });
        }
      }),
    );
  }

  const step = (name: string, field: string): FallbackStep => {
    if ((BUILTIN_STEPS as readonly string[]).includes(name)) {
      return { kind: name as 'local-cache' | 'queue-for-sync' | 'error', name };
    }
    const group = groups.get(name);
    if (group !== undefined) return { kind: 'targets', name, targets: group };
    if (name.includes('://')) {
      try {
        return { kind: 'targets', name, targets: [parseTarget(name)] };
      } catch (cause) {
        throw new PlexusError('INVALID_PARAMS', `${field}: ${(cause as Error).message}`, {
          cause,
          details: { field },
        });
      }
    }
    const known = [...BUILTIN_STEPS, ...groups.keys()].join(', ');
    throw invalid(
      `${field}: unknown fallback step ${JSON.stringify(name)}; use one of ${known}, or a target (http://host:port, local://agent)`,
      field,
    );
  };

  const policies = new Map<string, SelectedPolicy>();
  policies.set(DEFAULT_POLICY, { name: DEFAULT_POLICY, steps: [{ kind: 'error', name: 'error' }] });
  for (const [name, steps] of Object.entries(config.policies ?? {})) {
    const field = `fallback_policies.${name}`;
    if (!NAME.test(name)) throw invalid(`${field}: a policy name must match ${NAME.source}`, field);
    if (steps.length === 0) throw invalid(`${field}: a policy needs at least one step`, field);
    policies.set(name, { name, steps: steps.map((s, i) => step(s, `${field}[${i}]`)) });
  }
  const defaultPolicy = config.defaultPolicy ?? DEFAULT_POLICY;
  if (!policies.has(defaultPolicy)) {
    throw invalid(
      `routing.defaultPolicy: no policy named ${JSON.stringify(defaultPolicy)}`,
      'routing.defaultPolicy',
    );
  }
  const verbs = new Map<string, string>();
  for (const [verb, name] of Object.entries(config.verbs ?? {})) {
    const field = `routing.verbs.${verb}`;
    if (!policies.has(name)) {
      throw invalid(
        `${field}: no policy named ${JSON.stringify(name)} (known: ${[...policies.keys()].sort().join(', ')})`,
        field,
      );
    }
    verbs.set(stripVerbVersion(verb), name);
  }
  const usesCache = [...policies.values()].some((p) => p.steps.some((s) => s.kind === 'local-cache'));

  return {
    usesCache,
    names: [...policies.keys()].sort(),
    select(envelope: Envelope): SelectedPolicy {
      const asked = policyNameOf(envelope);
      if (asked === undefined) {
        const name = verbs.get(stripVerbVersion(envelope.verb)) ?? defaultPolicy;
        return policies.get(name) as SelectedPolicy;
      }
      const named = policies.get(asked);
      if (named !== undefined) return named;
      const parts = asked.split(CHAIN_SEPARATOR).filter((p) => p !== '');
      if (
        parts.length === 1 &&
        !(BUILTIN_STEPS as readonly string[]).includes(asked) &&
        !groups.has(asked) &&
        !asked.includes('://')
      ) {
        throw invalid(
          `fallback_policy ${JSON.stringify(asked)} names no policy of this node (known: ${[...policies.keys()].sort().join(', ')}); give a policy name or a chain like "local-cache → queue-for-sync"`,
          'fallback_policy',
        );
      }
      return { name: asked, steps: parts.map((p, i) => step(p, `fallback_policy[${i}]`)) };
    },
  };
}
