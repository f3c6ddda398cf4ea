/**
 * The Hyperspace guard primitive (seed 003 §4.2): JSON Schema validation, content safety
 * (personal data, secrets, prompt injection, blocked terms), event-sourced session budgets in
 * micro-units and rate limits; and the PII detector and redactor other parts reuse.
 */
export {
  GUARD_PROJECTIONS,
  guardPrimitive,
  windowMs,
  type GuardComponents,
  type GuardInit,
} from './guard-primitive.js';
export {
  GUARD_EVENTS,
  RATE_PRUNE_EVERY,
  budgetsProjection,
  rateLimitsProjection,
  rateWindowKey,
  windowOpen,
  type BudgetConsumedData,
  type BudgetEntry,
  type BudgetsState,
  type RateLimitHitData,
  type RateLimitsState,
  type RateWindow,
} from './guard-projections.js';
export {
  PII_KINDS,
  detectPii,
  piiCategory,
  redactFindings,
  redactPii,
  redactPiiDeep,
  type PiiCategory,
  type PiiFinding,
  type PiiKind,
} from './pii.js';
export {
  DEFAULT_SAFETY_POLICY,
  INJECTION_PATTERNS,
  checkContent,
  resolveSafetyPolicy,
  type ResolvedSafetyPolicy,
  type SafetyFlag,
  type SafetyPolicy,
} from './safety.js';
export { userSchemaValidator, type UserSchemaValidator } from './user-schemas.js';
