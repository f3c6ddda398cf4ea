/**
 * Effect handlers (seed 002 §3.3, §11.1–11.2): the registry and its contract, the budget
 * ledger (a projection of the log, D12), the built-in `charges` / `audits` / `emits`
 * handlers, the handler context's declared-effect checks, and UCAN budget caps.
 */
export { AUDIT_EFFECT_EVENT, auditsHandler, type AuditsHandlerInit } from './audits-handler.js';
export {
  budgetExceeded,
  budgetLedger,
  unitsText,
  type BudgetFigures,
  type BudgetLedger,
  type BudgetLedgerInit,
  type Charge,
  type ChargeLine,
  type ChargeRequest,
} from './budget-ledger.js';
export { BUDGET_RESOURCE, budgetReader } from './budget-reader.js';
export {
  UNTENANTED_BUDGET,
  budgetLines,
  chargesHandler,
  checkBudgetPolicy,
  metersOf,
  principalBudget,
  tenantBudget,
  tenantOfCall,
  type BudgetPolicy,
  type ChargesHandlerInit,
  type ExtraBudgets,
} from './charges-handler.js';
export {
  effectRegistry,
  type EffectCall,
  type EffectHandler,
  type EffectOutcome,
  type EffectRegistry,
} from './effect-handler.js';
export { effectRunner, type EffectLeg, type EffectRunner, type EffectRunnerInit } from './effect-runner.js';
export {
  createEffectScope,
  emitMatches,
  readerIn,
  resourceMatches,
  type EffectScope,
  type EffectScopeInit,
  type EmittedEvent,
  type ReadRequest,
  type ResourceReader,
} from './effect-scope.js';
export { emitsHandler, type EmitsHandlerInit } from './emits-handler.js';
export {
  LEDGER_EVENTS,
  LEDGER_PROJECTION_NAME,
  ledgerProjection,
  spentOf,
  type BudgetAccount,
  type LedgerCreditedData,
  type LedgerDebitedData,
  type LedgerState,
} from './ledger-projection.js';
export { RUNTIME_NAMESPACES, reservedTypes } from './reserved-types.js';
export {
  runtimeEffects,
  type EffectsComponents,
  type EffectsInit,
  type RuntimeEffects,
} from './runtime-effects.js';
export { chainBudgetCaps, ucanBudget, ucanBudgets } from './ucan-budgets.js';
