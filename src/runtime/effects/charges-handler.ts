/**
 * The `charges` effect handler (seed 002 §3.3's billing example): before the verb's
 * handler runs, the call's price — a configured price per charged meter, in micro-units
 * (D12) — is debited from the caller's budgets in the ledger: the tenant's, the
 * principal's when it has a limit, and any extra budgets (UCAN `budget` caveats). A budget
 * that cannot pay fails the job `BUDGET_EXCEEDED` before the handler runs. A leg that does
 * not complete (failed, timed out, cancelled) is refunded in full.
 */
import { PlexusError } from '../../core/errors.js';
import { BILLING_CHARGE_COUNT } from '../../observability/span-names.js';
import type { Observer } from '../observer.js';
import type { EffectCall, EffectHandler, EffectOutcome } from './effect-handler.js';
import type { BudgetLedger, Charge, ChargeLine } from './budget-ledger.js';

/** Prices and limits, micro-units (D12). */
export interface BudgetPolicy {
  /** What one call costs per charged meter (`{tokens: 1000}`); a meter without a price costs nothing. */
  readonly prices: Readonly<Record<string, number>>;
  /** Limit of each listed tenant's budget (`tenant:<id>`). */
  readonly tenants?: Readonly<Record<string, number>>;
  /**
   * Limit of a tenant not listed, each tenant its own budget; calls without a tenant share
   * the budget `untenanted`. @default none: such budgets are metered, not limited
   */
  readonly defaultTenant?: number;
  /** Limit of each listed principal's budget (`principal:<id>`); other principals have none. */
  readonly principals?: Readonly<Record<string, number>>;
}

/** Extra budget lines of a call (e.g. UCAN caps), given its meters. */
export type ExtraBudgets = (
  call: EffectCall,
  meters: Readonly<Record<string, number>>,
) => readonly ChargeLine[];

/** Options of {@link chargesHandler}. */
export interface ChargesHandlerInit {
  readonly ledger: BudgetLedger;
  readonly policy: BudgetPolicy;
  readonly extraBudgets?: ExtraBudgets;
  /** Where each charged meter is counted ({@link BILLING_CHARGE_COUNT}). @default none */
  readonly observer?: Observer;
}

/** The budget id of calls without a tenant. */
export const UNTENANTED_BUDGET = 'untenanted';

/** The tenant a call is charged to: the credential's tenant, else the envelope's. */
export function tenantOfCall(call: Pick<EffectCall, 'principal' | 'envelope'>): string | undefined {
  return call.principal?.tenantId ?? call.envelope.tenantId;
}

/** The budget id of a tenant (`tenant:acme`, or `untenanted`). */
export function tenantBudget(tenant: string | undefined): string {
  return tenant === undefined ? UNTENANTED_BUDGET : `tenant:${tenant}`;
}

/** The budget id of a principal. */
export function principalBudget(principal: string): string {
  return `principal:${principal}`;
}

/** The price of a call per meter (meters with a price only). */
export function metersOf(policy: BudgetPolicy, resources: readonly string[]): Record<string, number> {
  const meters: Record<string, number> = {};
  for (const meter of resources) {
    const price = Object.hasOwn(policy.prices, meter) ? policy.prices[meter] : undefined;
    if (price !== undefined && price > 0) meters[meter] = price;
  }
  return meters;
}

/** The budget lines a call is debited from. */
export function budgetLines(
  policy: BudgetPolicy,
  call: Pick<EffectCall, 'principal' | 'envelope'>,
  meters: Readonly<Record<string, number>>,
): ChargeLine[] {
  const amount = Object.values(meters).reduce((a, b) => a + b, 0);
  const tenant = tenantOfCall(call);
  const tenantLimit =
    tenant !== undefined && policy.tenants !== undefined && Object.hasOwn(policy.tenants, tenant)
      ? policy.tenants[tenant]
      : policy.defaultTenant;
  const lines: ChargeLine[] = [
    {
      budget: tenantBudget(tenant),
      amount,
      meters,
      ...(tenantLimit === undefined ? {} : { limit: tenantLimit }),
    },
  ];
  const principal = call.principal?.id;
  if (
    principal !== undefined &&
    policy.principals !== undefined &&
    Object.hasOwn(policy.principals, principal)
  ) {
    lines.push({
      budget: principalBudget(principal),
      amount,
      meters,
      limit: policy.principals[principal] as number,
    });
  }
  return lines;
}

/**
 * Checks a policy: every price and limit a whole number of micro-units ≥ 0.
 * @throws PlexusError `INVALID_PARAMS` naming the field (`budgets.tenants.acme`).
 */
export function checkBudgetPolicy(policy: BudgetPolicy): BudgetPolicy {
  const check = (field: string, value: unknown): void => {
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
      throw new PlexusError(
        'INVALID_PARAMS',
        `${field} must be a whole number of micro-units ≥ 0 (1 unit = 1000000), got ${JSON.stringify(value)}`,
        { details: { field } },
      );
    }
  };
  const each = (field: string, map: unknown): void => {
    if (map === undefined) return;
    if (typeof map !== 'object' || map === null || Array.isArray(map)) {
      throw new PlexusError('INVALID_PARAMS', `${field} must map names to micro-units`, {
        details: { field },
      });
    }
    for (const [name, value] of Object.entries(map)) check(`${field}.${name}`, value);
  };
  if (typeof policy !== 'object' || (policy as unknown) === null) {
    throw new PlexusError(
      'INVALID_PARAMS',
      'budgets must be {prices, tenants?, defaultTenant?, principals?}',
    );
  }
  if ((policy.prices as unknown) === undefined) each('budgets.prices', null);
  each('budgets.prices', policy.prices);
  each('budgets.tenants', policy.tenants);
  each('budgets.principals', policy.principals);
  if (policy.defaultTenant !== undefined) check('budgets.defaultTenant', policy.defaultTenant);
  return policy;
}

/**
 * Creates the `charges` handler.
 * @throws PlexusError `INVALID_PARAMS` for a bad policy (see {@link checkBudgetPolicy}).
 */
export function chargesHandler(init: ChargesHandlerInit): EffectHandler {
  const { ledger } = init;
  const policy = checkBudgetPolicy(init.policy);
  return {
    effect: 'charges',
    async before(call: EffectCall): Promise<Charge | undefined> {
      const meters = metersOf(policy, call.resources);
      if (Object.keys(meters).length === 0) return undefined;
      const id = `${call.jobId}/${call.agentId}`;
      if (call.attempt > 1) {
        // run again after a restart: the first run's charge (if it stands) is not taken twice
        const standing = await ledger.standing(call.jobId, id, { signal: call.signal });
        if (standing !== undefined) return standing;
      }
      const tenant = tenantOfCall(call);
      const charge = await ledger.charge(
        {
          id,
          lines: [...budgetLines(policy, call, meters), ...(init.extraBudgets?.(call, meters) ?? [])],
          job: call.jobId,
          agent: call.agentId,
          verb: call.verb,
          ...(tenant === undefined ? {} : { tenant }),
        },
        // not tied to the job's signal: a debit written but not awaited would never be refunded
      );
      if (init.observer !== undefined) {
        for (const meter of Object.keys(meters)) {
          init.observer.count(BILLING_CHARGE_COUNT, tenant === undefined ? { meter } : { meter, tenant });
        }
      }
      return charge;
    },
    async after(_call: EffectCall, outcome: EffectOutcome, memo: unknown): Promise<void> {
      if (outcome.ok || memo === undefined) return;
      await ledger.refund(memo as Charge, 'refund');
    },
  };
}
