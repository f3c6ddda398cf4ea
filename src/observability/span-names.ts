/**
 * The span names the observability layer reads meaning from (docs/observability.md). The
 * runtime reports these through its `Observer`; the metrics adapter turns them into meters.
 */

/**
 * One invocation, from the runtime taking the request until its answer (a sync call) or the
 * end of its job (an async submission). Attributes: `verb`, `tenant` (absent = none), `face`,
 * `mode`, `traceparent` and `user` (the envelope's, when present: for the log line only);
 * ended with the refusal or the job's error when it did not succeed, and the end attributes
 * `cache_hit` (answered from an earlier identical request) and `effects` (`effect:resource`
 * of the verb run, when it completed).
 */
export const INVOCATION_SPAN = 'runtime.invocation';

/**
 * One routing decision carried out: a job's run on the agents the router chose. Attributes:
 * `job`, `verb`, `route` (`local`, `remote`, `broadcast`), `agents` (how many), `traceparent`
 * (the request's, when it has one); ended with the error of a failed run.
 */
export const EXECUTE_SPAN = 'runtime.execute';

/**
 * One fallback step the router tries after a target failed. Attributes: `policy`, `step`,
 * `from_transport` (the failed target's scheme), `to_transport` (the step's first target's
 * scheme, or `local-cache`, `queue-for-sync`, `error`): closed sets.
 */
export const FALLBACK_COUNT = 'routing.fallbacks';

/** One commit of a job's events to the event log (a child of `runtime.post_effects`). Attribute: `events`. */
export const STORE_COMMIT_SPAN = 'store.commit';

/**
 * One request forwarded to another node (a CLIENT span; its id is the hop's `traceparent`, so
 * the peer's spans are its children). Attributes: `agent`, `target`, and OTel's `server.address`.
 */
export const FORWARD_SPAN = 'routing.forward';

/**
 * One phase of an effect handler, before or after a verb (`effect.<name>`), a child of the job's
 * execute span. Attributes: `effect`, `phase` (`before` / `after`), `job`, `resources`.
 */
export const EFFECT_SPAN_PREFIX = 'effect.';

/**
 * One capability check of a request by the capability authorizer (listing what a caller may
 * use is not a check). Attributes: `scope` (the scope or effect the refusal named, else the
 * first the verb declares, else `verb`: only the verb itself was required) and `result`
 * (`allowed`, `denied`, or `forced`: let through although not covered).
 */
export const CAPABILITY_CHECK_COUNT = 'capability.checks';

/**
 * One meter of one charge debited by the `charges` effect (a price > 0 on that meter).
 * Attributes: `meter`, `tenant` (absent = none); value: 1 (a count of charges, not of micro-units).
 */
export const BILLING_CHARGE_COUNT = 'billing.charges';
