/**
 * What a face hands the runtime beside the decoded Envelope (the invocation context), and
 * what a verb handler receives (the handler context).
 */
import type { Envelope } from '../core/envelope.js';
import type { JsonValue } from '../core/json.js';
import type { CallerChannel, SampleRequest, SampleResult } from './jobs/caller-channel.js';

/** Who is calling, as established by the face (bearer JWT, API key) or by a signature. */
export interface Principal {
  /** The caller's identity (a did:key, a user id, an API key's name). */
  readonly id: string;
  /**
   * How the identity was established: `bearer` (a JWT), `api-key`, `signature` (a verified
   * signed envelope, set by the runtime), `local` (in-process), or a face's own word.
   */
  readonly kind: string;
  /** Capability scopes granted to the caller, when the credential carries any. */
  readonly scopes?: readonly string[];
  /** The tenant the credential belongs to. */
  readonly tenantId?: string;
}

/** The request mode: answer when done (`sync`) or return the job at once (`async`). */
export type InvocationMode = 'sync' | 'async';

/**
 * The names a face may give itself in an {@link InvocationContext}, one key each. The runtime
 * declares `internal`; every face declares its own name where it is defined, by declaration
 * merging, so `runtime/` never imports a face:
 *
 * @example
 * declare module '../../runtime/context.js' {
 *   interface FaceNames {
 *     readonly esrp: true;
 *   }
 * }
 */
export interface FaceNames {
  /** A call the node makes on its own behalf (a route, a primitive, a queued retry). */
  readonly internal: true;
}

/** The name of a registered face: a key of {@link FaceNames}. */
export type FaceName = keyof FaceNames;

/**
 * Everything a face knows about a request that the Envelope does not carry.
 *
 * @example
 * { face: 'esrp', principal: { id: 'did:key:z6Mk…', kind: 'bearer' },
 *   transport: { remoteAddress: '127.0.0.1' }, payloadHash: '9f86…', timeoutMs: 60000 }
 */
export interface InvocationContext {
  /** The face that decoded the request (`esrp`, `emergence`, `hyperspace`, `peer`, `internal`, …). */
  readonly face: FaceName;
  /** The authenticated caller; absent when the request carried no valid credential. */
  readonly principal?: Principal;
  /** Transport metadata for audit (remote address, connection id, user agent). */
  readonly transport?: Readonly<Record<string, string>>;
  /** An explicit idempotency key (ESRP `idempotency_key`, an `Idempotency-Key` header). */
  readonly idempotencyKey?: string;
  /**
   * How long, in ms, the key answers duplicates after submission, when it should not be the
   * runtime's window (`idempotencyWindowMs`, default 10 minutes); never less than the job's
   * timeout. A face that makes up a key no caller can send again (a JSON-RPC call without
   * `_x_idempotency_key`) passes 0, so the key is forgotten once its job is over instead of
   * being held for the whole window. A whole number ≥ 0.
   */
  readonly idempotencyWindowMs?: number;
  /**
   * The payload hash the face computed (ESRP `payload_hash`, 64 lower-case hex). It is the
   * default idempotency key; without it the runtime hashes `{to, verb, data}` (RFC 8785).
   */
  readonly payloadHash?: string;
  /** Per-request timeout in ms (ESRP `mode.timeout_ms`); the envelope `deadline` also applies. */
  readonly timeoutMs?: number;
  /**
   * A live channel back to the caller while the job runs (an MCP client that can sample), kept
   * in memory beside the job and never recorded (docs/decisions/mcp.md MCP-51).
   */
  readonly caller?: CallerChannel;
}

/** What a verb handler receives beside its input. */
export interface HandlerContext {
  /** Aborted when the job is cancelled, times out, or the node stops; stop work then. */
  readonly signal: AbortSignal;
  /** The job id. */
  readonly jobId: string;
  /** The request envelope. */
  readonly envelope: Envelope;
  /** The id of the agent running the verb. */
  readonly agentId: string;
  /** The caller's agent id (`envelope.from`). */
  readonly caller: string;
  /** The authenticated caller, when there is one. */
  readonly principal?: Principal;
  /** The deadline, Unix ms. */
  readonly deadline: number;
  /** 1 for the first run of the job; higher when the job is run again after a restart. */
  readonly attempt: number;
  /**
   * The W3C `traceparent` of the span this handler runs in — the job's `runtime.execute` span
   * when the node traces, else the request's — absent when the request carried none. A handler
   * that calls another service sends it along (a `traceparent` header, MCP `_meta`, A2A message
   * metadata) so the far side continues the trace (docs/observability.md "Traces").
   */
  readonly traceparent?: string;
  /**
   * Reports progress (a `job.progress` event; `job_progress` on the ESRP face). Cheap and
   * fire-and-forget; ignored once the job has finished.
   */
  progress(data: JsonValue): void;
  /**
   * Reads a resource the verb declares under `reads` (seed 002 §11.2), through the node's
   * reader of it (`budget` is built in: the caller's budgets).
   * @throws PlexusError `FORBIDDEN` naming the verb and the resource when it is not declared
   *   (the job then fails, even if the error is caught); `NOT_FOUND` when no reader serves it.
   */
  read(resource: string, query?: JsonValue): Promise<JsonValue>;
  /**
   * Emits an event of a type the verb declares under `emits` (`emits: [session.started]` or
   * `[event/session.started]`); the runtime appends it, with the job as its causation, once
   * the handler has succeeded — a failed job emits nothing.
   * @throws PlexusError `FORBIDDEN` naming the verb and the type when it is not declared (the
   *   job then fails, even if the error is caught) or is one of the node's own types.
   */
  emit(type: string, data?: JsonValue): void;
  /**
   * Reports facts about the work for the node's trace and meters (seed 002 §7.1–7.2): the model
   * an LLM call used and its tokens become `agentese.llm.model` / `agentese.llm.tokens.input` /
   * `agentese.llm.tokens.output` on the invocation's span and are added to
   * `agentese_llm_tokens_total` when the invocation ends; a later report of the same field
   * replaces the earlier one.
   *
   * @example ctx.telemetry({ llm: { model: 'claude-opus-4-5', inputTokens: 1234, outputTokens: 567 } });
   */
  telemetry(report: HandlerTelemetry): void;
  /**
   * Asks the caller for more input (A2A `INPUT_REQUIRED`): resolves with the caller's answer
   * (checked against `options.schema`). The first time, the job pauses durably instead — the
   * handler's run ends here (do not catch what this throws) — and when the caller answers,
   * the handler runs again from the start with the answers given so far replayed in order.
   * So do before it only what may be done twice. Local handlers only; a broadcast fails.
   * @throws PlexusError `INVALID_PARAMS` for an empty or over-long prompt.
   */
  requestInput(prompt: string, options?: { readonly schema?: JsonValue }): Promise<JsonValue>;
  /**
   * Asks the calling MCP client's model for a message (MCP `sampling/createMessage`): the
   * request is `{messages, maxTokens, systemPrompt?, temperature?, stopSequences?, …}`, the
   * answer `{role, content, model, stopReason?}`. Only a job whose caller is an MCP client
   * that declared the `sampling` capability, on this node, while the call is open, can
   * sample: the channel is not durable (a job recovered after a restart has none), and a
   * handler re-run after `requestInput` samples again.
   * @throws PlexusError `PRECONDITION_FAILED` when the caller cannot sample;
   *   `INVALID_PARAMS` for a malformed request; `UNAVAILABLE` when the client answers an
   *   error; `TIMEOUT` at the job's deadline.
   *
   * @example
   * const { content } = await ctx.sample({
   *   messages: [{ role: 'user', content: { type: 'text', text: 'Summarise: …' } }],
   *   maxTokens: 200,
   * });
   */
  sample(request: SampleRequest): Promise<SampleResult>;
}

/** What a handler reports through {@link HandlerContext.telemetry}. */
export interface HandlerTelemetry {
  readonly llm?: {
    /** The model called. */
    readonly model?: string;
    /** Tokens sent to it (a whole number ≥ 0). */
    readonly inputTokens?: number;
    /** Tokens it answered with (a whole number ≥ 0). */
    readonly outputTokens?: number;
  };
}

/**
 * A verb's implementation: takes the (schema-checked) input, returns the output (JSON).
 * Throw a PlexusError to fail the job with that code; anything else thrown is a crash
 * (`INTERNAL`, and the agent instance is re-created).
 */
export type VerbHandler = (input: JsonValue, context: HandlerContext) => JsonValue | Promise<JsonValue>;
