/**
 * UCAN `budget` caveats as budgets of the ledger (DESIGN D7, decision U-6): a token whose
 * capabilities carry `{budget: {meter: micro-units}}` caps what calls made with it may
 * spend on that meter, cumulatively, as the budget `ucan:<leaf cid>/<meter>`. The tightest
 * cap among the leaf's caveats that name the meter applies (delegation can only lower caps,
 * so the leaf's are the narrowest of its chain).
 */
import { isBudget } from '../../security/ucan/capability.js';
import type { UcanVerifier, VerifiedChain } from '../../security/ucan/chain-verifier.js';
import { capabilityOf } from '../pipeline/capability-authorizer.js';
import type { ChargeLine } from './budget-ledger.js';
import type { ExtraBudgets } from './charges-handler.js';

/** The budget id of a token's cap on a meter. */
export function ucanBudget(cid: string, meter: string): string {
  return `ucan:${cid}/${meter}`;
}

/** The caps of a verified chain per meter (micro-units). */
export function chainBudgetCaps(chain: VerifiedChain): Map<string, number> {
  const caps = new Map<string, number>();
  for (const entry of chain.capabilities) {
    for (const caveat of entry.caveats) {
      const budget = caveat['budget'];
      if (!isBudget(budget)) continue;
      for (const [meter, cap] of Object.entries(budget))
        caps.set(meter, Math.min(caps.get(meter) ?? cap, cap));
    }
  }
  return caps;
}

/**
 * Extra budgets from the request's UCAN (for `chargesHandler({ extraBudgets })`). A request
 * without a token, or whose token no longer verifies (the authorizer already decided on
 * it), adds none.
 */
export function ucanBudgets(verifier: UcanVerifier): ExtraBudgets {
  return (call, meters) => {
    const token = capabilityOf(call.envelope);
    if (token === undefined) return [];
    let chain: VerifiedChain;
    try {
      chain = verifier.verify(token);
    } catch {
      return [];
    }
    const caps = chainBudgetCaps(chain);
    const lines: ChargeLine[] = [];
    for (const [meter, amount] of Object.entries(meters)) {
      const cap = caps.get(meter);
      if (cap !== undefined)
        lines.push({ budget: ucanBudget(chain.cid, meter), amount, limit: cap, meters: { [meter]: amount } });
    }
    return lines;
  };
}
