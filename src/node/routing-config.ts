/**
 * The routing part of `plexus.yaml` (seed 002 §6.3): named fallback policies under the seed's
 * own key `fallback_policies`, and the rest under `routing`:
 *
 * ```yaml
 * fallback_policies:
 *   default: [error]                          # built in when absent
 *   high-availability: [secondary-region, local-cache, error]
 *   offline-first: [local-cache, queue-for-sync]
 * routing:
 *   defaultPolicy: default                    # the policy of a request that names none
 *   verbs: { math.evaluate: offline-first }   # per verb (no @version)
 *   groups:                                   # target groups a policy step may name
 *     secondary-region: [http://10.0.0.7:3100, http://10.0.0.8:3100]
 *     local-llm: [local://ollama]
 *   queueForSync: { maxWaitMs: 600000, retryMs: 1000, maxRetryMs: 30000, maxAttempts: 100 }
 * ```
 */
import { PlexusError } from '../core/errors.js';
import { fallbackPolicies, type FallbackConfig, type QueueForSyncInit } from '../runtime/routing/index.js';

/** The routing options of a node. */
export interface RoutingConfig extends FallbackConfig {
  /** Bounds of the `queue-for-sync` delivery loop. */
  readonly queueForSync?: QueueForSyncInit;
}

const ROUTING_FIELDS = ['defaultPolicy', 'verbs', 'groups', 'queueForSync'];
const QUEUE_FIELDS = ['maxWaitMs', 'retryMs', 'maxRetryMs', 'maxAttempts'] as const;

function fail(source: string, field: string, message: string): never {
  throw new PlexusError('INVALID_PARAMS', `${source}: "${field}" ${message}`, { details: { field } });
}

function mapping(source: string, field: string, value: unknown): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    fail(source, field, 'must be a mapping');
  return value as Record<string, unknown>;
}

function names(source: string, field: string, value: unknown): string[] {
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string' || v === '')) {
    fail(source, field, 'must be a list of names');
  }
  return value as string[];
}

/**
 * Reads `fallback_policies` and `routing` (either may be `undefined`) and checks them
 * together (every step, group and verb mapping).
 *
 * @throws PlexusError `INVALID_PARAMS` naming the field.
 */
export function parseRoutingConfig(source: string, policies: unknown, routing: unknown): RoutingConfig {
  const config: { -readonly [K in keyof RoutingConfig]: RoutingConfig[K] } = {};
  if (policies !== undefined) {
    config.policies = Object.fromEntries(
      Object.entries(mapping(source, 'fallback_policies', policies)).map(([name, steps]) => [
        name,
        names(source, `fallback_policies.${name}`, steps),
      ]),
    );
  }
  if (routing !== undefined) {
    const r = mapping(source, 'routing', routing);
    for (const key of Object.keys(r)) {
      if (!ROUTING_FIELDS.includes(key)) {
        fail(source, `routing.${key}`, `is not a routing option (use ${ROUTING_FIELDS.join(', ')})`);
      }
    }
    if (r['defaultPolicy'] !== undefined) {
      if (typeof r['defaultPolicy'] !== 'string')
        fail(source, 'routing.defaultPolicy', 'must be a policy name');
      config.defaultPolicy = r['defaultPolicy'];
    }
    if (r['verbs'] !== undefined) {
      const verbs = mapping(source, 'routing.verbs', r['verbs']);
      for (const [verb, name] of Object.entries(verbs)) {
        if (typeof name !== 'string') fail(source, `routing.verbs.${verb}`, 'must be a policy name');
      }
      config.verbs = verbs as Record<string, string>;
    }
    if (r['groups'] !== undefined) {
      config.groups = Object.fromEntries(
        Object.entries(mapping(source, 'routing.groups', r['groups'])).map(([name, targets]) => [
          name,
          names(source, `routing.groups.${name}`, targets),
        ]),
      );
    }
    if (r['queueForSync'] !== undefined) {
      const q = mapping(source, 'routing.queueForSync', r['queueForSync']);
      const queue: { -readonly [K in keyof QueueForSyncInit]: QueueForSyncInit[K] } = {};
      for (const [key, value] of Object.entries(q)) {
        if (!(QUEUE_FIELDS as readonly string[]).includes(key)) {
          fail(source, `routing.queueForSync.${key}`, `is not an option (use ${QUEUE_FIELDS.join(', ')})`);
        }
        if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1) {
          fail(source, `routing.queueForSync.${key}`, 'must be a whole number ≥ 1');
        }
        queue[key as (typeof QUEUE_FIELDS)[number]] = value;
      }
      config.queueForSync = queue;
    }
  }
  try {
    fallbackPolicies(config);
  } catch (error) {
    const e = error as PlexusError;
    throw new PlexusError('INVALID_PARAMS', `${source}: ${e.message}`, {
      cause: e,
      ...(e.details === undefined ? {} : { details: e.details }),
    });
  }
  return config;
}
