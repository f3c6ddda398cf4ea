/**
 * JSON Schemas (2020-12) of the guard primitive's params and results (seed 003 §4.2).
 * Amounts are numbers of units (the seed's `0.02`); the handler converts them exactly to
 * micro-units and refuses more than six decimals (−32602 naming the field).
 */
import { SESSION_ID } from '../state/state-schemas.js';

const AMOUNT = { type: 'number', minimum: 0 } as const;
const KIND_LIST = {
  type: 'array',
  maxItems: 64,
  items: { type: 'string', minLength: 1, maxLength: 64 },
} as const;

/** A safety policy object (see SafetyPolicy). */
export const SAFETY_POLICY = {
  type: 'object',
  additionalProperties: false,
  properties: {
    pii: { anyOf: [{ type: 'boolean' }, KIND_LIST] },
    secrets: { anyOf: [{ type: 'boolean' }, KIND_LIST] },
    promptInjection: { type: 'boolean' },
    blockedTerms: { type: 'array', maxItems: 500, items: { type: 'string', minLength: 1, maxLength: 200 } },
    enforce: { type: 'boolean' },
  },
} as const;

/** `guard.validate` params. */
export const VALIDATE_INPUT = {
  type: 'object',
  required: ['data', 'schema'],
  additionalProperties: false,
  properties: { data: true, schema: { type: ['object', 'boolean'] } },
} as const;

/** `guard.validate` result: `errors` only when invalid. */
export const VALIDATE_OUTPUT = {
  type: 'object',
  required: ['valid'],
  properties: {
    valid: { type: 'boolean' },
    errors: {
      type: 'array',
      items: {
        type: 'object',
        required: ['pointer', 'message'],
        properties: { pointer: { type: 'string' }, message: { type: 'string' } },
      },
    },
  },
} as const;

/** `guard.checkSafety` params: `policy` is a policy object or the name of a configured one. */
export const CHECK_SAFETY_INPUT = {
  type: 'object',
  required: ['content'],
  additionalProperties: false,
  properties: {
    content: true,
    policy: { anyOf: [{ type: 'string', minLength: 1, maxLength: 100 }, SAFETY_POLICY] },
  },
} as const;

/** `guard.checkSafety` result. */
export const CHECK_SAFETY_OUTPUT = {
  type: 'object',
  required: ['safe', 'flags'],
  properties: {
    safe: { type: 'boolean' },
    flags: {
      type: 'array',
      items: {
        type: 'object',
        required: ['type', 'kind', 'start', 'end'],
        properties: {
          type: { enum: ['pii', 'secret', 'prompt_injection', 'blocked_term'] },
          kind: { type: 'string' },
          start: { type: 'integer', minimum: 0 },
          end: { type: 'integer', minimum: 0 },
          term: { type: 'string' },
          pointer: { type: 'string' },
        },
      },
    },
  },
} as const;

/** `guard.checkBudget` params. */
export const CHECK_BUDGET_INPUT = {
  type: 'object',
  required: ['sessionId', 'estimatedCost'],
  additionalProperties: false,
  properties: { sessionId: SESSION_ID, estimatedCost: AMOUNT },
} as const;

const BUDGET_FIGURES = {
  remaining: { type: 'number', minimum: 0 },
  consumed: { type: 'number', minimum: 0 },
  limit: { type: 'number', minimum: 0 },
} as const;

/** `guard.checkBudget` result: `reason` only when not allowed. */
export const CHECK_BUDGET_OUTPUT = {
  type: 'object',
  required: ['allowed', 'remaining', 'consumed', 'limit'],
  properties: { allowed: { type: 'boolean' }, ...BUDGET_FIGURES, reason: { type: 'string' } },
} as const;

/** `guard.consumeBudget` params. */
export const CONSUME_BUDGET_INPUT = {
  type: 'object',
  required: ['sessionId', 'amount'],
  additionalProperties: false,
  properties: {
    sessionId: SESSION_ID,
    amount: { type: 'number', exclusiveMinimum: 0 },
    description: { type: 'string', maxLength: 1000 },
  },
} as const;

/** `guard.consumeBudget` result (`remaining` is the seed's; `consumed` and `limit` added). */
export const CONSUME_BUDGET_OUTPUT = {
  type: 'object',
  required: ['remaining', 'consumed', 'limit'],
  properties: BUDGET_FIGURES,
} as const;

/** `guard.getBudgetStatus` params. */
export const BUDGET_STATUS_INPUT = {
  type: 'object',
  required: ['sessionId'],
  additionalProperties: false,
  properties: { sessionId: SESSION_ID },
} as const;

/** `guard.getBudgetStatus` result. */
export const BUDGET_STATUS_OUTPUT = {
  type: 'object',
  required: ['remaining', 'consumed', 'limit'],
  properties: BUDGET_FIGURES,
} as const;

/** A window: milliseconds, or a duration text (`500ms`, `30s`, `1m`, `1h`, `1d`). */
export const WINDOW = {
  anyOf: [
    { type: 'integer', minimum: 1, maximum: 31_536_000_000 },
    { type: 'string', pattern: '^[1-9][0-9]{0,9}(ms|s|m|h|d)$' },
  ],
} as const;

/** `guard.checkRateLimit` params. */
export const RATE_LIMIT_INPUT = {
  type: 'object',
  required: ['key', 'limit', 'window'],
  additionalProperties: false,
  properties: {
    key: { type: 'string', minLength: 1, maxLength: 256 },
    limit: { type: 'integer', minimum: 1, maximum: 1_000_000_000 },
    window: WINDOW,
    enforce: { type: 'boolean' },
  },
} as const;

/** `guard.checkRateLimit` result. */
export const RATE_LIMIT_OUTPUT = {
  type: 'object',
  required: ['allowed', 'remaining', 'resetAt'],
  properties: {
    allowed: { type: 'boolean' },
    remaining: { type: 'integer', minimum: 0 },
    resetAt: { type: 'string', format: 'date-time' },
  },
} as const;
