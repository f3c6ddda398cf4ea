/**
 * The `budgets:` section of `plexus.yaml`: prices of the meters verbs declare under
 * `charges`, and budget limits per tenant and principal (docs/effects.md). Amounts are
 * written in units (`0.001`) and held in integer micro-units (D12), converted exactly once
 * here; an amount with more than six decimals is refused, not rounded.
 *
 * ```yaml
 * budgets:
 *   prices: { tokens: 0.001, compute: 0.0005 }   # per call, per charged meter
 *   tenants: { acme: 5, beta: 0.5 }              # limit of each tenant's budget
 *   default: 1                                   # each other tenant (and calls without one)
 *   principals: { ci: 2 }                        # limits of some principals (also checked)
 * ```
 */
import { PlexusError } from '../core/errors.js';
import { toMicros } from '../primitives/money.js';
import type { BudgetPolicy } from '../runtime/index.js';

const FIELDS = ['prices', 'tenants', 'default', 'principals'];

function fail(source: string, field: string, message: string): never {
  throw new PlexusError('INVALID_PARAMS', `${source}: "${field}" ${message}`, { details: { field } });
}

function isMapping(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function amount(source: string, field: string, value: unknown): number {
  try {
    return toMicros(value, field);
  } catch (error) {
    const message = error instanceof PlexusError ? error.message.slice(field.length + 1) : String(error);
    return fail(source, field, `${message} (an amount in units, e.g. 0.25)`);
  }
}

function amounts(source: string, field: string, value: unknown): Record<string, number> {
  if (!isMapping(value)) fail(source, field, 'must be a mapping of names to amounts in units');
  const out: Record<string, number> = {};
  for (const [name, v] of Object.entries(value)) {
    if (name.trim() === '') fail(source, field, 'has an empty name');
    out[name] = amount(source, `${field}.${name}`, v);
  }
  return out;
}

/**
 * Checks the `budgets:` section and returns the policy in micro-units.
 * @throws PlexusError `INVALID_PARAMS` naming the bad key (`budgets.tenants.acme`).
 */
export function parseBudgetsConfig(value: unknown, source = 'configuration'): BudgetPolicy {
  if (!isMapping(value))
    fail(source, 'budgets', 'must be a mapping with prices, tenants, default, principals');
  for (const key of Object.keys(value)) {
    if (!FIELDS.includes(key))
      fail(source, `budgets.${key}`, `is not a known setting; known: ${FIELDS.join(', ')}`);
  }
  if (value['prices'] === undefined)
    fail(source, 'budgets.prices', 'is required: the price of each charged meter');
  const policy: { -readonly [K in keyof BudgetPolicy]: BudgetPolicy[K] } = {
    prices: amounts(source, 'budgets.prices', value['prices']),
  };
  if (value['tenants'] !== undefined) policy.tenants = amounts(source, 'budgets.tenants', value['tenants']);
  if (value['default'] !== undefined)
    policy.defaultTenant = amount(source, 'budgets.default', value['default']);
  if (value['principals'] !== undefined)
    policy.principals = amounts(source, 'budgets.principals', value['principals']);
  return policy;
}
