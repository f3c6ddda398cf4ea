/**
 * The span names the observability layer reads meaning from (docs/observability.md). The
 * runtime reports these through its `Observer`; the metrics adapter turns them into meters.
 */

/**
 * One invocation, from the runtime taking the request until its answer (a sync call) or the
 * end of its job (an async submission). Attributes: `verb`, `tenant` (absent = none), `face`,
 * `mode`; ended with the refusal or the job's error when it did not succeed.
 */
export const INVOCATION_SPAN = 'runtime.invocation';
