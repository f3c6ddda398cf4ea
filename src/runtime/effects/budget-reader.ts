/**
 * The `budget` resource: a verb that declares `reads: [budget]` may read its caller's
 * budgets with `ctx.read('budget')` — `{budgets: [{budget, spent, limit?, remaining?}]}`
 * in micro-units, the tenant's first, then the principal's when it has a limit.
 */
import type { JsonValue } from '../../core/json.js';
import type { BudgetLedger } from './budget-ledger.js';
import { principalBudget, tenantBudget, tenantOfCall, type BudgetPolicy } from './charges-handler.js';
import type { ResourceReader } from './effect-scope.js';

/** The resource name the reader serves. */
export const BUDGET_RESOURCE = 'budget';

/** Creates the reader of the `budget` resource. */
export function budgetReader(ledger: BudgetLedger, policy: BudgetPolicy | undefined): ResourceReader {
  return (request) => {
    const tenant = tenantOfCall(request);
    const limit =
      tenant !== undefined && policy?.tenants !== undefined && Object.hasOwn(policy.tenants, tenant)
        ? policy.tenants[tenant]
        : policy?.defaultTenant;
    const budgets: JsonValue[] = [{ ...ledger.figures(tenantBudget(tenant), limit) }];
    const principal = request.principal?.id;
    if (
      principal !== undefined &&
      policy?.principals !== undefined &&
      Object.hasOwn(policy.principals, principal)
    ) {
      budgets.push({ ...ledger.figures(principalBudget(principal), policy.principals[principal]) });
    }
    return { budgets };
  };
}
