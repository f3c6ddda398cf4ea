/**
 * The Hyperspace guard primitive (seed 003 §4.2): schema validation, content safety, session
 * budgets and rate limits.
 *
 * - Budgets: a session's limit is fixed when the state primitive creates it (`budget` param,
 *   or the state primitive's default); consumption is the `guard.budgets` projection, in
 *   micro-units (D12). `checkBudget` changes nothing; `consumeBudget` checks and appends
 *   under a per-session lock, so concurrent consumers can never overspend.
 * - Rate limits: fixed windows per tenant, key and window length, opened by the first counted
 *   request. An allowed `checkRateLimit` counts (appends a hit whose time the handler wrote);
 *   a refused one counts nothing.
 */
import { PlexusError } from '../../core/errors.js';
import type { JsonObject, JsonValue } from '../../core/json.js';
import type { HandlerContext } from '../../runtime/index.js';
import type { Projection } from '../../store/projection.js';
import { projectionView } from '../../store/projection-view.js';
import { keyedLock } from '../keyed-lock.js';
import { formatMicros, fromMicros, toMicros } from '../money.js';
import { definePrimitive, type Primitive, type PrimitiveComponents } from '../primitive.js';
import { requireActive, type SessionDirectory } from '../state/state-primitive.js';
import type { SessionRecord } from '../state/state-projection.js';
import {
  GUARD_EVENTS,
  budgetsProjection,
  rateLimitsProjection,
  rateWindowKey,
  windowOpen,
  type BudgetConsumedData,
} from './guard-projections.js';
import {
  BUDGET_STATUS_INPUT,
  BUDGET_STATUS_OUTPUT,
  CHECK_BUDGET_INPUT,
  CHECK_BUDGET_OUTPUT,
  CHECK_SAFETY_INPUT,
  CHECK_SAFETY_OUTPUT,
  CONSUME_BUDGET_INPUT,
  CONSUME_BUDGET_OUTPUT,
  RATE_LIMIT_INPUT,
  RATE_LIMIT_OUTPUT,
  VALIDATE_INPUT,
  VALIDATE_OUTPUT,
} from './guard-schemas.js';
import {
  DEFAULT_SAFETY_POLICY,
  checkContent,
  contentLength,
  resolveSafetyPolicy,
  type ResolvedSafetyPolicy,
  type SafetyPolicy,
} from './safety.js';
import { userSchemaValidator } from './user-schemas.js';

/** Dependencies of the guard primitive. */
export interface GuardComponents extends PrimitiveComponents {
  /** The sessions budgets belong to (the state primitive's `sessions`). */
  readonly sessions: SessionDirectory;
}

/** Options of the guard primitive. */
export interface GuardInit {
  /** The node's safety policy (fields a call's `policy` does not set). @default all checks, no terms */
  readonly safety?: SafetyPolicy;
  /** Named policies a call may select with `policy: "<name>"` (`default` is the node's). */
  readonly policies?: Readonly<Record<string, SafetyPolicy>>;
  /** Most characters of strings `checkSafety` scans in one call. @default 1000000 */
  readonly maxContentLength?: number;
}

/** The projections of the guard primitive (for `plexus replay --verify`). */
export const GUARD_PROJECTIONS: readonly Projection<unknown>[] = [budgetsProjection, rateLimitsProjection];

const DURATION_UNIT_MS: Readonly<Record<string, number>> = {
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
};

/**
 * A window in ms from a number of ms or a duration text (`30s`).
 * @throws PlexusError `INVALID_PARAMS` naming `window`.
 */
export function windowMs(window: number | string): number {
  if (typeof window === 'number') return window;
  const m = /^([1-9]\d{0,9})(ms|s|m|h|d)$/.exec(window);
  const ms = m === null ? NaN : Number(m[1]) * (DURATION_UNIT_MS[m[2] ?? ''] ?? NaN);
  if (!Number.isSafeInteger(ms) || ms > 31_536_000_000) {
    throw new PlexusError('INVALID_PARAMS', `window ${JSON.stringify(window)} must be 1 ms to 365 d`, {
      details: { field: 'window', problems: [{ pointer: '/window', message: 'must be 1 ms to 365 d' }] },
    });
  }
  return ms;
}

const tenantField = (ctx: HandlerContext): { tenant?: string } =>
  ctx.envelope.tenantId === undefined ? {} : { tenant: ctx.envelope.tenantId };

/**
 * Creates the guard primitive.
 *
 * @throws PlexusError `INVALID_PARAMS` for a bad node or named policy.
 * @example
 * const state = statePrimitive({ log });
 * const guard = guardPrimitive({ log, sessions: state.sessions }, { safety: { blockedTerms: ['acme-internal'] } });
 */
export function guardPrimitive(components: GuardComponents, init: GuardInit = {}): Primitive {
  const { log, sessions } = components;
  const now = components.now ?? Date.now;
  const nodePolicy = resolveSafetyPolicy(DEFAULT_SAFETY_POLICY, init.safety);
  const named = new Map<string, ResolvedSafetyPolicy>([['default', nodePolicy]]);
  for (const [name, policy] of Object.entries(init.policies ?? {}))
    named.set(name, resolveSafetyPolicy(nodePolicy, policy));
  const maxContentLength = init.maxContentLength ?? 1_000_000;
  const budgets = projectionView({ log, projection: budgetsProjection });
  const rates = projectionView({ log, projection: rateLimitsProjection });
  const schemas = userSchemaValidator();
  const lock = keyedLock();

  const figures = (session: SessionRecord): { consumed: number; limit: number; remaining: number } => {
    const consumed = budgets.state().sessions.get(session.sessionId)?.consumed ?? 0;
    return { consumed, limit: session.budget, remaining: Math.max(0, session.budget - consumed) };
  };
  const units = (f: { consumed: number; limit: number; remaining: number }): JsonObject => ({
    remaining: fromMicros(f.remaining),
    consumed: fromMicros(f.consumed),
    limit: fromMicros(f.limit),
  });

  const policyOf = (policy: string | SafetyPolicy | undefined): ResolvedSafetyPolicy => {
    if (policy === undefined) return nodePolicy;
    if (typeof policy !== 'string') return resolveSafetyPolicy(nodePolicy, policy);
    const found = named.get(policy);
    if (found === undefined) {
      throw new PlexusError(
        'INVALID_PARAMS',
        `policy ${JSON.stringify(policy)} is not configured here; known: ${[...named.keys()].join(', ')}`,
        {
          details: {
            field: 'policy',
            problems: [{ pointer: '/policy', message: 'names no configured policy' }],
          },
        },
      );
    }
    return found;
  };

  return definePrimitive({
    name: 'guard',
    title: 'Hyperspace guard',
    views: [budgets, rates],
    methods: [
      {
        method: 'validate',
        description: 'Validates data against a JSON Schema (2020-12); answers valid and the errors.',
        input: VALIDATE_INPUT,
        output: VALIDATE_OUTPUT,
        category: 'query',
        effects: {},
        handler(input) {
          const { data, schema } = input as { data: JsonValue; schema: boolean | JsonObject };
          const problems = schemas.validate(schema, data);
          return problems.length === 0
            ? { valid: true }
            : { valid: false, errors: problems.map((p) => ({ pointer: p.pointer, message: p.message })) };
        },
      },
      {
        method: 'checkSafety',
        description:
          'Checks content for personal data, secrets, prompt injection and blocked terms; flags carry kind and span.',
        input: CHECK_SAFETY_INPUT,
        output: CHECK_SAFETY_OUTPUT,
        category: 'query',
        effects: { reads: ['guard/policies'] },
        handler(input) {
          const { content, policy } = input as { content: JsonValue; policy?: string | SafetyPolicy };
          const length = contentLength(content);
          if (length > maxContentLength) {
            throw new PlexusError(
              'INVALID_PARAMS',
              `content has ${length} characters of text; the limit is ${maxContentLength}`,
              {
                details: {
                  field: 'content',
                  problems: [
                    {
                      pointer: '/content',
                      message: `must have at most ${maxContentLength} characters of text`,
                    },
                  ],
                },
              },
            );
          }
          const resolved = policyOf(policy);
          const { safe, flags } = checkContent(content, resolved);
          if (!safe && resolved.enforce) {
            const kinds = [...new Set(flags.map((f) => f.kind))];
            throw new PlexusError(
              'SAFETY_VIOLATION',
              `Safety violation: the content has ${flags.length} flagged span(s): ${kinds.join(', ')}`,
              {
                details: { flags: flags as unknown as JsonValue[] },
              },
            );
          }
          return { safe, flags: flags as unknown as JsonValue[] };
        },
      },
      {
        method: 'checkBudget',
        description: 'Answers whether a session can afford an estimated cost (no side effect).',
        input: CHECK_BUDGET_INPUT,
        output: CHECK_BUDGET_OUTPUT,
        category: 'query',
        effects: { reads: ['state/sessions', 'guard/budgets'] },
        handler(input, ctx) {
          const { sessionId, estimatedCost } = input as { sessionId: string; estimatedCost: number };
          const cost = toMicros(estimatedCost, 'estimatedCost');
          const f = figures(sessions.require(sessionId, ctx.envelope.tenantId));
          const allowed = cost <= f.remaining;
          const out: JsonObject = { allowed, ...units(f) };
          if (!allowed)
            out.reason = `Estimated cost (${formatMicros(cost)}) exceeds remaining budget (${formatMicros(f.remaining)})`;
          return out;
        },
      },
      {
        method: 'consumeBudget',
        description: 'Consumes an amount of a session budget atomically; −32002 when it would overspend.',
        input: CONSUME_BUDGET_INPUT,
        output: CONSUME_BUDGET_OUTPUT,
        category: 'mutation',
        effects: { reads: ['state/sessions'], writes: ['guard/budgets'] },
        handler(input, ctx) {
          const { sessionId, amount, description } = input as {
            sessionId: string;
            amount: number;
            description?: string;
          };
          const micros = toMicros(amount, 'amount', { allowZero: false });
          return lock.run(sessionId, async () => {
            const session = sessions.require(sessionId, ctx.envelope.tenantId);
            const f = figures(session);
            // An overspend is refused as such even on an ended session (the seed's own flow
            // asks for 5.00 after endSession and expects −32002); an affordable spend on an
            // ended session is refused as PRECONDITION_FAILED below.
            if (micros > f.remaining) {
              throw new PlexusError(
                'BUDGET_EXCEEDED',
                `Budget exceeded: ${formatMicros(micros)} requested, ${formatMicros(f.remaining)} of ${formatMicros(f.limit)} remaining`,
                {
                  details: {
                    remaining: fromMicros(f.remaining),
                    requested: fromMicros(micros),
                    limit: fromMicros(f.limit),
                  },
                },
              );
            }
            requireActive(session, 'consume budget');
            const data: BudgetConsumedData = {
              sessionId,
              amount: micros,
              ...(description === undefined ? {} : { description }),
              at: now(),
            };
            const event = await log.append({
              type: GUARD_EVENTS.budgetConsumed,
              data,
              ...tenantField(ctx),
            });
            await budgets.waitFor(event.seq);
            return units(figures(session));
          });
        },
      },
      {
        method: 'checkRateLimit',
        description:
          'Counts a request against a limit per key and window; answers allowed, remaining and resetAt.',
        input: RATE_LIMIT_INPUT,
        output: RATE_LIMIT_OUTPUT,
        category: 'mutation',
        effects: { writes: ['guard/rate_limits'] },
        handler(input, ctx) {
          const p = input as { key: string; limit: number; window: number | string; enforce?: boolean };
          const ms = windowMs(p.window);
          const scoped = rateWindowKey(ctx.envelope.tenantId, ms, p.key);
          return lock.run(`rate\u0000${scoped}`, async () => {
            const at = now();
            const window = rates.state().windows.get(scoped);
            const open = windowOpen(window, at);
            const used = open ? window.count : 0;
            const resetAt = new Date((open ? window.start : at) + ms).toISOString();
            if (used >= p.limit) {
              if (p.enforce === true) {
                throw new PlexusError(
                  'RATE_LIMITED',
                  `Rate limited: ${p.limit} requests per ${ms} ms for key ${JSON.stringify(p.key)}; retry after ${resetAt}`,
                  {
                    details: { key: p.key, limit: p.limit, remaining: 0, resetAt },
                  },
                );
              }
              return { allowed: false, remaining: 0, resetAt };
            }
            const event = await log.append({
              type: GUARD_EVENTS.rateLimitHit,
              data: { key: p.key, windowMs: ms, limit: p.limit, at },
              ...tenantField(ctx),
            });
            await rates.waitFor(event.seq);
            return { allowed: true, remaining: p.limit - used - 1, resetAt };
          });
        },
      },
      {
        method: 'getBudgetStatus',
        description: "Answers a session's budget: remaining, consumed and limit.",
        input: BUDGET_STATUS_INPUT,
        output: BUDGET_STATUS_OUTPUT,
        category: 'query',
        effects: { reads: ['state/sessions', 'guard/budgets'] },
        handler(input, ctx) {
          const { sessionId } = input as { sessionId: string };
          return units(figures(sessions.require(sessionId, ctx.envelope.tenantId)));
        },
      },
    ],
  });
}
