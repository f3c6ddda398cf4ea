/**
 * From a JSON-RPC call to the runtime (seed 003 §3: the method is the verb): the request
 * envelope addressed to `capability:<verb>`, the invocation context of the Hyperspace face,
 * the face's control members of `params`, sync invocation or — for streaming calls — submit,
 * follow the job's progress as `stream.data` notifications, then answer.
 */
import { randomUUID } from 'node:crypto';
import type { Envelope } from '../../core/envelope.js';
import { errorHintsOf, recoveryFields } from '../../core/error-recovery.js';
import { ERROR_TABLE, PlexusError, isPlexusErrorCode, toPlexusError } from '../../core/errors.js';
import type { ErrorData } from '../../core/errors.js';
import { isJsonObject } from '../../core/json.js';
import type { JsonObject, JsonValue } from '../../core/json.js';
import { capabilitySelector } from '../../core/verb-name.js';
import type { InvocationContext, Runtime } from '../../runtime/index.js';
import { warningsOf, type EraWarning } from '../../runtime/pipeline/era.js';
import type { Principal as AuthPrincipal } from '../../security/auth/index.js';
import { JSONRPC_EXTENSIONS, JSONRPC_VERSION } from '../../wire/jsonrpc/index.js';
import type { JsonRpcDispatch, JsonRpcId, JsonRpcParams } from '../../wire/jsonrpc/index.js';
import type { Admission } from '../admission.js';
import { runtimePrincipal } from '../face-components.js';
import type { Observer, ObserverSpan } from '../../runtime/observer.js';
import { JSONRPC_ERRORS } from '../../wire/jsonrpc/error-table.js';
import { childSpan, tracestateOfMeta, traceparentOfMeta } from '../trace-headers.js';
import { WS_CONTROL_PARAMS, WS_STREAM_METHOD } from './protocol.js';
import type { WsStreamChunk } from './protocol.js';

/** The `face` of every invocation made by this face. */
export const HYPERSPACE_FACE = 'hyperspace';

declare module '../../runtime/context.js' {
  interface FaceNames {
    /** Calls of the WebSocket JSON-RPC (Hyperspace) face. */
    readonly hyperspace: true;
  }
}

/**
 * The method of the notification that carries the deprecation warnings of a call, sent just
 * before its response (docs/decisions/eras-hints-refusals.md): `params` = `{id, warnings}`, `id` the call's id.
 */
export const WS_WARNING_METHOD = 'plexus.warning';

/** The `params` of a {@link WS_WARNING_METHOD} notification. */
export interface WsWarningParams {
  /** The id of the call the warnings belong to. */
  readonly id: JsonRpcId;
  /** The deprecation warnings (seed 002 §10.3). */
  readonly warnings: readonly EraWarning[];
}

/**
 * An error's `data` on this face: its ErrorData (`code`, `message`, `retryable`, `details`)
 * with the recovery fields of seed 002 §8.2 beside them (`category`, `retry_after`,
 * `fallback_verb`, `suggested_action`, `verb`, `trace_id`); the internal `hints` member is
 * replaced by those fields.
 */
export function errorDataWithRecovery(error: PlexusError): JsonObject {
  const data = error.toData();
  const out: JsonObject = { code: data.code, message: data.message, retryable: data.retryable };
  if (data.details !== undefined) out['details'] = data.details;
  return { ...out, ...recoveryFields(data) };
}

/** What the face's control members of `params` asked for. */
export interface CallControls {
  readonly stream?: boolean;
  readonly timeoutMs?: number;
  readonly idempotencyKey?: string;
  /** A capability container for this call (`_x_capability`); wins over the connection's. */
  readonly capability?: string;
  /**
   * The caller's span, from `params._meta.traceparent` when it is a valid W3C traceparent: the
   * call continues that trace (wins over the upgrade's header). A malformed one is ignored.
   */
  readonly traceparent?: string;
  /** The `tracestate` beside that `traceparent` (`params._meta.tracestate`), when well formed (OBS-45). */
  readonly tracestate?: string;
}

/** A call's verb input and controls, once the control members are taken out of `params`. */
export interface SplitParams {
  readonly data: JsonValue;
  readonly controls: CallControls;
}

function controlError(key: string, expected: string): PlexusError {
  return new PlexusError('INVALID_PARAMS', `params.${key} must be ${expected}`, {
    details: { pointer: `/params/${key}` },
  });
}

/**
 * Takes the control members (`_x_stream`, `_x_timeout_ms`, `_x_idempotency_key`, `_x_capability`)
 * and the reserved `_meta` (JSON-RPC metadata, as in MCP: its `traceparent` continues the
 * caller's trace) out of object params; the rest is the verb's input (`null` when there are no
 * params). `_meta` is never an error: a value that is not an object, or a malformed
 * traceparent in it, is dropped.
 *
 * @throws PlexusError `INVALID_PARAMS` with `details.pointer` (`/params/_x_…`) for a control
 *   member of the wrong type.
 */
export function splitParams(params: JsonRpcParams | undefined): SplitParams {
  if (params === undefined) return { data: null, controls: {} };
  if (Array.isArray(params)) return { data: params, controls: {} };
  const { stream, timeoutMs, idempotencyKey, capability, meta } = WS_CONTROL_PARAMS;
  if (
    !(stream in params) &&
    !(timeoutMs in params) &&
    !(idempotencyKey in params) &&
    !(capability in params) &&
    !Object.hasOwn(params, meta)
  ) {
    return { data: params, controls: {} };
  }
  // fromEntries defines own properties, so a "__proto__" member stays a member.
  const data: JsonObject = Object.fromEntries(
    Object.entries(params).filter(
      ([key]) =>
        key !== stream && key !== timeoutMs && key !== idempotencyKey && key !== capability && key !== meta,
    ),
  );
  const controls: {
    stream?: boolean;
    timeoutMs?: number;
    idempotencyKey?: string;
    capability?: string;
    traceparent?: string;
    tracestate?: string;
  } = {};
  const traceparent = Object.hasOwn(params, meta) ? traceparentOfMeta(params[meta]) : undefined;
  if (traceparent !== undefined) {
    controls.traceparent = traceparent;
    const tracestate = tracestateOfMeta(params[meta]);
    if (tracestate !== undefined) controls.tracestate = tracestate;
  }
  const c = params[capability];
  if (c !== undefined) {
    if (typeof c !== 'string' || c.trim() === '') {
      throw controlError(capability, 'a capability container: the UCAN, then its proofs, comma-separated');
    }
    controls.capability = c;
  }
  const s = params[stream];
  if (s !== undefined) {
    if (typeof s !== 'boolean') throw controlError(stream, 'true or false');
    controls.stream = s;
  }
  const t = params[timeoutMs];
  if (t !== undefined) {
    if (typeof t !== 'number' || !Number.isSafeInteger(t) || t < 1) {
      throw controlError(timeoutMs, 'a whole number of milliseconds ≥ 1');
    }
    controls.timeoutMs = t;
  }
  const k = params[idempotencyKey];
  if (k !== undefined) {
    if (typeof k !== 'string' || k.length === 0 || k.length > 256) {
      throw controlError(idempotencyKey, 'a string of 1 to 256 characters');
    }
    controls.idempotencyKey = k;
  }
  return { data, controls };
}

/** The JSON-RPC id of a decoded call (see the codec: a non-string id is kept in an extension). */
export function jsonRpcIdOf(envelope: Envelope): JsonRpcId {
  const ext = envelope.extensions?.[JSONRPC_EXTENSIONS.id];
  return ext === undefined ? envelope.id : (ext as JsonRpcId);
}

/**
 * The result of an answer envelope: its data for a `response`.
 * @throws PlexusError rebuilt from the ErrorData of an `error` answer.
 */
export function resultOf(answer: Envelope): JsonValue {
  if (answer.kind !== 'error') return answer.data;
  const data = answer.data;
  if (isJsonObject(data) && isPlexusErrorCode(data.code) && typeof data.message === 'string') {
    const hints = errorHintsOf(data['hints']);
    const clean: ErrorData = {
      code: data.code,
      message: data.message,
      retryable:
        typeof data['retryable'] === 'boolean' ? data['retryable'] : ERROR_TABLE[data.code].retryable,
      ...(isJsonObject(data['details']) ? { details: data['details'] } : {}),
      ...(hints === undefined ? {} : { hints }),
    };
    throw PlexusError.fromData(clean);
  }
  throw new PlexusError('INTERNAL', 'the runtime answered with an error envelope without ErrorData');
}

/** True when some agent offering `verb` declares it a `stream` verb (VerbSpec category). */
export function isStreamVerb(runtime: Runtime, verb: string): boolean {
  const { registry } = runtime.agents;
  return registry.byCapability(verb).some((card) => registry.verbSpec(card.id, verb)?.category === 'stream');
}

/** One connection's view of the caller, given to {@link hyperspaceDispatch}. */
export interface CallerContext {
  /** The principal authenticated at the upgrade. */
  readonly principal: AuthPrincipal;
  /** The capability container presented at the upgrade, if any. */
  readonly capability?: string;
  /** Transport metadata for audit (remote address, connection id). */
  readonly transport: Readonly<Record<string, string>>;
  /**
   * The caller's span the upgrade request named (its valid W3C `traceparent` header): each call
   * is a new span of its trace.
   */
  readonly traceparent?: string;
  /** The upgrade's `tracestate` header beside that `traceparent`, when well formed (OBS-45). */
  readonly tracestate?: string;
  /** The node's tracer: each call is a SERVER span (OTel RPC conventions). @default none */
  readonly tracing?: Observer;
  /** Aborted when the connection closes: calls in flight are cancelled. */
  readonly signal: AbortSignal;
  /** Sends a notification (a stream chunk) to the caller. */
  notify(text: string): void;
  /** The node's admission control: each call takes a slot before anything of it runs. */
  readonly admission?: Admission;
  /** What identifies the connection to {@link CallerContext.admission}. */
  readonly connection?: object;
}

/** Options of {@link hyperspaceDispatch}. */
export interface DispatchOptions {
  /**
   * JSON-RPC method → verb, for methods this face alone names differently; the runtime's alias
   * table (`runtime.agents.resolveVerb`) is consulted after it.
   */
  readonly methodAliases: ReadonlyMap<string, string>;
}

/** The request envelope of a call: verb = method (after aliases), to = `capability:<verb>`. */
function requestEnvelope(
  verb: string,
  data: JsonValue,
  principal: AuthPrincipal,
  id: JsonRpcId | undefined,
  capability: string | undefined,
  trace: { readonly traceparent?: string; readonly tracestate?: string },
): Envelope {
  return {
    id: randomUUID(),
    kind: 'request',
    from: principal.id,
    to: capabilitySelector(verb),
    verb,
    data,
    ...(principal.tenant === undefined ? {} : { tenantId: principal.tenant }),
    ...(capability === undefined ? {} : { capability }),
    ...(trace.traceparent === undefined ? {} : { traceparent: trace.traceparent }),
    ...(trace.traceparent === undefined || trace.tracestate === undefined
      ? {}
      : { tracestate: trace.tracestate }),
    ...(id === undefined ? {} : { extensions: { [JSONRPC_EXTENSIONS.id]: id } }),
  };
}

/** Sends the {@link WS_WARNING_METHOD} notification of a call (nothing without warnings). */
function announceWarnings(
  caller: CallerContext,
  id: JsonRpcId | undefined,
  warnings: readonly EraWarning[],
): void {
  if (id === undefined || warnings.length === 0) return;
  const params: WsWarningParams = { id, warnings };
  caller.notify(JSON.stringify({ jsonrpc: JSONRPC_VERSION, method: WS_WARNING_METHOD, params }));
}

/** Runs a streaming call: submit, forward each progress event as a chunk, answer at the end. */
async function streamCall(
  runtime: Runtime,
  request: Envelope,
  context: InvocationContext,
  caller: CallerContext,
  id: JsonRpcId,
): Promise<JsonValue> {
  const { signal } = caller;
  const { job, duplicate } = await runtime.submit(request, context, { signal });
  const cancel = (): void => {
    if (!duplicate) {
      runtime.jobs.cancel(job.id, { reason: 'the WebSocket connection closed' }).catch(() => undefined);
    }
  };
  signal.addEventListener('abort', cancel, { once: true });
  try {
    let seq = 0;
    for await (const event of runtime.jobs.watch(job.id, { signal })) {
      if (event.type === 'job.progress') {
        const data = isJsonObject(event.data) ? (event.data.progress ?? null) : null;
        const chunk: WsStreamChunk = { id, job: job.id, seq: ++seq, data };
        caller.notify(JSON.stringify({ jsonrpc: JSONRPC_VERSION, method: WS_STREAM_METHOD, params: chunk }));
      }
      if (event.terminal) break;
    }
    await runtime.jobs.wait(job.id, { signal });
    const answer = await runtime.jobs.answer(job.id, { signal });
    announceWarnings(caller, id, warningsOf(answer));
    return resultOf(answer);
  } finally {
    signal.removeEventListener('abort', cancel);
  }
}

/** The most characters of a method name or error message a span carries. */
const MAX_SPAN_TEXT = 256;

/** The `tracestate` that goes with a call's parent: its `_meta`'s, else the upgrade's. */
function tracestateOf(
  meta: { readonly traceparent?: string; readonly tracestate?: string },
  caller: CallerContext,
): { tracestate?: string } {
  const state = meta.traceparent === undefined ? caller.tracestate : meta.tracestate;
  return state === undefined ? {} : { tracestate: state };
}

/**
 * The SERVER span of one call (OTel RPC semantic conventions, OBS-46): `rpc.system` `jsonrpc`,
 * `rpc.method`, `rpc.jsonrpc.version`, `rpc.jsonrpc.request_id`; its parent is the caller's span
 * in `params._meta.traceparent` when valid, else the upgrade's, else it starts a trace.
 */
function serverSpan(
  caller: CallerContext,
  tracing: Observer,
  method: string,
  params: JsonRpcParams | undefined,
  envelope: Parameters<JsonRpcDispatch>[3],
): ObserverSpan {
  const meta =
    params !== undefined && !Array.isArray(params) && Object.hasOwn(params, WS_CONTROL_PARAMS.meta)
      ? params[WS_CONTROL_PARAMS.meta]
      : undefined;
  const own = traceparentOfMeta(meta);
  const parent = own ?? caller.traceparent;
  const tracestate = own === undefined ? caller.tracestate : tracestateOfMeta(meta);
  const id = envelope.kind === 'notification' ? undefined : jsonRpcIdOf(envelope);
  const name = method.slice(0, MAX_SPAN_TEXT);
  return tracing.span(
    name,
    {
      'rpc.system': 'jsonrpc',
      'rpc.method': name,
      'rpc.jsonrpc.version': JSONRPC_VERSION,
      ...(id === undefined || id === null ? {} : { 'rpc.jsonrpc.request_id': String(id) }),
    },
    {
      kind: 'server',
      ...(parent === undefined ? {} : { parent }),
      ...(parent === undefined || tracestate === undefined ? {} : { tracestate }),
    },
  );
}

/**
 * The dispatcher of one connection: each call becomes a request envelope from the principal
 * to `capability:<verb>` with context face `hyperspace`. Requests are cancelled when the
 * connection closes; notifications are not (they run to their deadline, answering nothing).
 * A call streams when `params._x_stream` is true, or when it is absent and the verb's spec has
 * category `stream`.
 */
export function hyperspaceDispatch(
  runtime: Runtime,
  options: DispatchOptions,
  caller: CallerContext,
): JsonRpcDispatch {
  const principal = runtimePrincipal(caller.principal);
  return async (method, params, _signal, envelope) => {
    const span =
      caller.tracing === undefined ? undefined : serverSpan(caller, caller.tracing, method, params, envelope);
    try {
      // Shed before anything is decoded or run: −32003 (Rate Limited) beyond the bounds.
      const slot = caller.admission?.admit(caller.connection ?? caller);
      try {
        const result = await call(method, params, envelope, span?.traceparent);
        span?.end();
        return result;
      } finally {
        slot?.release();
      }
    } catch (error) {
      if (span !== undefined) {
        const failure = toPlexusError(error);
        span.set?.({
          'rpc.jsonrpc.error_code': JSONRPC_ERRORS[failure.code].hyperspace,
          'rpc.jsonrpc.error_message': failure.message.slice(0, MAX_SPAN_TEXT),
        });
        span.end(failure);
      }
      throw error;
    }
  };

  async function call(
    method: string,
    params: JsonRpcParams | undefined,
    envelope: Parameters<JsonRpcDispatch>[3],
    served: string | undefined,
  ): Promise<JsonValue> {
    // the face's own aliases, then the runtime's table (the seed's camelCase primitive methods)
    const verb = options.methodAliases.get(method) ?? runtime.agents.resolveVerb(method);
    const { data, controls } = splitParams(params);
    const isNotification = envelope.kind === 'notification';
    const id = isNotification ? undefined : jsonRpcIdOf(envelope);
    const capability = controls.capability ?? caller.capability;
    const request = requestEnvelope(
      verb,
      data,
      caller.principal,
      id,
      capability,
      served === undefined
        ? // the caller's span in `_meta`; else a span of the upgrade's trace; else the runtime's own
          controls.traceparent === undefined
          ? {
              ...(caller.traceparent === undefined ? {} : { traceparent: childSpan(caller.traceparent) }),
              ...(caller.tracestate === undefined ? {} : { tracestate: caller.tracestate }),
            }
          : controls
        : // the call's SERVER span: the invocation is its child (OBS-46)
          { traceparent: served, ...tracestateOf(controls, caller) },
    );
    const context: InvocationContext = {
      face: HYPERSPACE_FACE,
      principal,
      transport: caller.transport,
      // JSON-RPC calls are distinct calls: only an explicit key de-duplicates (docs/decisions/faces-ws.md, D5-ws-idempotency).
      idempotencyKey: controls.idempotencyKey ?? `hyperspace:${request.id}`,
      // A key made up here can never be sent again: it is kept for the job's timeout, not the window.
      ...(controls.idempotencyKey === undefined ? { idempotencyWindowMs: 0 } : {}),
      ...(controls.timeoutMs === undefined ? {} : { timeoutMs: controls.timeoutMs }),
    };
    if (id !== undefined && (controls.stream ?? isStreamVerb(runtime, verb))) {
      return streamCall(runtime, request, context, caller, id);
    }
    const invocation = await runtime.invoke(
      request,
      context,
      isNotification ? {} : { signal: caller.signal },
    );
    announceWarnings(caller, id, invocation.warnings ?? warningsOf(invocation.envelope));
    return resultOf(invocation.envelope);
  }
}
