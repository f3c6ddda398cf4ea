/**
 * What an SDK call takes (`InvokeOptions`) and what an SDK verb handler receives
 * (`VerbContext`: the runtime's handler context plus trace, tenant, `emit` and nested
 * `invoke`, seed 002 §11.2).
 */
import type { JsonValue } from '../core/json.js';
import type { Event } from '../core/records/event.js';
import type { HandlerContext } from '../runtime/context.js';
import type { Refusal } from './refusal.js';
import type { EraWarning } from './warnings.js';

/** Options of one call (`invoke`, a pipeline's `run`). Every field is optional. */
export interface InvokeOptions {
  /** The tenant (isolation boundary). */
  readonly tenantId?: string;
  readonly userId?: string;
  readonly sessionId?: string;
  /**
   * The caller's trace context: the call becomes a new span (fresh span id) in that trace.
   * @default a new trace
   */
  readonly traceparent?: string;
  /**
   * The W3C `tracestate` that goes with `traceparent` (vendor data a tracing system carries on
   * every hop, OBS-45): kept on the call's envelope when it is well formed and `traceparent` is
   * given, else dropped (never an error). A nested `ctx.invoke` passes its request's on.
   * @default none
   */
  readonly tracestate?: string;
  /** What caused the call (a job id or message id); links the call's span to its parent. */
  readonly causationId?: string;
  /** The call's timeout, ms. @default the node's default (30 s) */
  readonly timeoutMs?: number;
  /**
   * Deduplicate on this key: a repeated call with the same key inside the node's window gets
   * the first call's answer and does not run again. @default none (every call runs)
   */
  readonly idempotencyKey?: string;
  /** Address one agent by id instead of "whoever offers the verb". */
  readonly to?: string;
  /** A capability token (UCAN JWT) for the call. */
  readonly capability?: string;
  /** Aborting cancels the call's job. */
  readonly signal?: AbortSignal;
  /**
   * Receives each deprecation warning of the call (seed 002 §10.3): the era answered but is
   * deprecated. Called before `invoke` settles.
   */
  readonly onWarning?: (warning: EraWarning) => void;
}

/** The result of a call: the verb's output, or its refusal (a result, not an error). */
export type CallResult<O = JsonValue> = O | Refusal;

/**
 * What an SDK verb handler receives beside its input: the runtime's handler context, with its
 * own `emit` (namespace-scoped and awaited) in place of the runtime's declared-effects one.
 */
export interface VerbContext extends Omit<HandlerContext, 'emit' | 'traceparent'> {
  /**
   * The W3C `traceparent` of this call's span (the job's execute span when the node traces,
   * else the request's), when the request carried one. Nested `invoke`s are its children.
   */
  readonly traceparent: string | undefined;
  /** The request's tenant. */
  readonly tenantId: string | undefined;
  /**
   * Appends an event to the node's log, linked to this job (causation = job id, trace,
   * tenant). Its type must be in the verb's own namespace (`soul.memory.stored` from a
   * `soul.*` verb).
   * @throws PlexusError `FORBIDDEN` for a type outside the namespace; the log's errors.
   */
  emit(type: string, data: JsonValue): Promise<Event>;
  /**
   * Calls another verb as a child span of this job (same trace, causation = this job, same
   * tenant unless `options` say otherwise; aborted with this job).
   * @throws InvocationError when the callee answers with an error.
   */
  invoke<O = JsonValue>(verb: string, input: JsonValue, options?: InvokeOptions): Promise<CallResult<O>>;
}
