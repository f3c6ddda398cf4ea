/**
 * Runs one MCP `tools/call` (issue 13 item 3, seed 004 Req 5.4): the tool's verb goes to the
 * agent that offers it through the runtime, with face `mcp` and the session's principal, as a
 * synchronous invocation. With a `progressToken` each progress report of its job becomes a
 * `notifications/progress`, told by the runtime in memory once recorded (the job's caller
 * channel, RT-056; MCP-58), not read back from the log. A failure is a result with
 * `isError: true` whose text names the Plexus code, the message and the source agent, with the
 * code in `_meta` — never a JSON-RPC error. Cancelling the request (`notifications/cancelled`)
 * cancels the job. A verb whose output is an MCP tool result (`mcp:tool` `{content: true}`,
 * MCP-40) has it sent as it is, once the SDK's schema admits it. Progress data with a numeric
 * `progress` (and `total`, `message`) is sent with those numbers (MCP-41); a caller that
 * follows progress (`onProgress`, a session with a logging level) is told of it the same way.
 * A job that asks for input is asked of the client by elicitation when it can be (MCP-50,
 * `job-questions.ts`); a client that can sample lends the job its model (`ctx.sample`, MCP-51).
 */
import { randomUUID } from 'node:crypto';
import {
  CallToolResultSchema,
  type CallToolResult,
  type ElicitRequestFormParams,
  type ElicitResult,
  type ServerNotification,
} from '@modelcontextprotocol/sdk/types.js';
import type { Envelope } from '../../core/envelope.js';
import { PlexusError, toPlexusError } from '../../core/errors.js';
import { errorOfAnswer } from '../answer-error.js';
import { isJsonObject, type JsonValue } from '../../core/json.js';
import type { CallerChannel, InvocationContext, Principal, Runtime } from '../../runtime/index.js';
import { askCaller, MAX_QUESTIONS_PER_CALL, waitingFailure } from './job-questions.js';
import type { CatalogEntry } from './tool-catalog.js';
import { MCP_FACE } from './mcp-protocol.js';

/** Who calls, and how to reach them while the call runs. */
export interface ToolCaller {
  /** The call's id: its request envelope's id and, as `mcp:<id>`, its idempotency key. @default a new UUID */
  readonly callId?: string;
  readonly principal: Principal;
  /** A capability container the session carries, if any. */
  readonly capability?: string;
  readonly transport: Readonly<Record<string, string>>;
  /** Aborted when the client cancels the request or the session ends. */
  readonly signal: AbortSignal;
  /** The client's progress token, when it asked for progress. */
  readonly progressToken?: string | number;
  /** Sends a notification related to the call. */
  notify(notification: ServerNotification): Promise<void>;
  /** Told of each progress report of the call's job (the call is then submitted as a job). */
  readonly onProgress?: (data: JsonValue) => void;
  /** The W3C `traceparent` the call runs under (its `_meta`'s, else the HTTP request's span). */
  readonly traceparent?: string;
  /** The W3C `tracestate` beside `traceparent` (OBS-45). */
  readonly tracestate?: string;
  /** Sends `elicitation/create` to the client; absent when it did not declare `elicitation`. */
  readonly elicit?: (params: ElicitRequestFormParams, signal: AbortSignal) => Promise<ElicitResult>;
  /** The live channel the job may use (sampling), when the client can do anything for it. */
  readonly channel?: CallerChannel;
}

/** The idempotency key of call `callId` (unscoped; the runtime prefixes the tenant). */
export function toolCallKey(callId: string): string {
  return `mcp:${callId}`;
}

/** The failure result of a call that failed with `error` in agent `agentId`. */
export function toolFailure(error: PlexusError, agentId: string): CallToolResult {
  return {
    isError: true,
    content: [{ type: 'text', text: `${error.code}: ${error.message} (agent ${agentId})` }],
    _meta: { 'plexus/code': error.code, 'plexus/agent': agentId, 'plexus/retryable': error.retryable },
  };
}

/** The success result of `data` for `entry`. */
export function toolSuccess(entry: CatalogEntry, data: JsonValue): CallToolResult {
  if (entry.content) {
    const parsed = CallToolResultSchema.safeParse(data);
    if (parsed.success) return parsed.data;
    return toolFailure(
      new PlexusError(
        'INTERNAL',
        `verb ${entry.verb} declares an MCP tool result (mcp:tool content) but answered something else`,
      ),
      entry.agentId,
    );
  }
  return {
    content: [{ type: 'text', text: JSON.stringify(data) }],
    ...(entry.structured && isJsonObject(data) ? { structuredContent: data } : {}),
  };
}

/** The verb input of a call's `arguments`. */
function verbInput(entry: CatalogEntry, args: Record<string, unknown> | undefined): JsonValue {
  if (!entry.wrapped) return (args ?? {}) as JsonValue;
  return (args?.['input'] ?? null) as JsonValue;
}

/**
 * MCP-41: the numbers of one progress notification: the report's own `progress` (and `total`,
 * `message`) when it has a numeric `progress`, else the report's count and its JSON as message.
 */
export function progressParams(
  data: JsonValue | undefined,
  count: number,
): { progress: number; total?: number; message?: string } {
  if (isJsonObject(data) && typeof data['progress'] === 'number' && Number.isFinite(data['progress'])) {
    const { total, message } = data;
    return {
      progress: data['progress'],
      ...(typeof total === 'number' && Number.isFinite(total) ? { total } : {}),
      ...(typeof message === 'string' ? { message } : {}),
    };
  }
  return { progress: count, ...(data === undefined ? {} : { message: JSON.stringify(data) }) };
}

/** Runs `work` with job `jobId` cancelled when the call's signal aborts (the call owns the job). */
async function owning<T>(
  runtime: Runtime,
  jobId: string,
  signal: AbortSignal,
  work: () => Promise<T>,
): Promise<T> {
  const cancel = (): void => {
    runtime.jobs.cancel(jobId, { reason: 'cancelled by the MCP client' }).catch(() => undefined);
  };
  signal.addEventListener('abort', cancel, { once: true });
  try {
    return await work();
  } finally {
    signal.removeEventListener('abort', cancel);
  }
}

/** The id of the job an answer says waits for input (the runtime's answer at a pause, RT-055). */
function waitingJobOf(answer: Envelope): string | undefined {
  const data = answer.data;
  if (answer.kind !== 'error' || !isJsonObject(data) || !isJsonObject(data['details'])) return undefined;
  const { job, state } = data['details'];
  return state === 'INPUT_REQUIRED' && typeof job === 'string' ? job : undefined;
}

/** True when the caller follows the call's progress (a progress token, or `onProgress`). */
function following(caller: ToolCaller): boolean {
  return caller.progressToken !== undefined || caller.onProgress !== undefined;
}

/**
 * The progress relay of a call that follows progress (MCP-58): the runtime tells it each
 * progress report of the call's job once recorded (RT-056); each becomes `onProgress` and, with
 * a token, a `notifications/progress`, in order. `settled()` resolves once every notification
 * so far is sent; after `end()` nothing more is relayed (the job may outlive the call).
 */
function progressRelay(caller: ToolCaller): {
  readonly progress: (data: JsonValue) => void;
  settled(): Promise<void>;
  end(): void;
} {
  const token = caller.progressToken;
  let count = 0;
  let live = true;
  let sent: Promise<void> = Promise.resolve();
  return {
    progress(data) {
      if (!live) return;
      caller.onProgress?.(data ?? null);
      count++;
      if (token === undefined) return;
      const params = { progressToken: token, ...progressParams(data, count) };
      sent = sent
        .then(() => caller.notify({ method: 'notifications/progress', params }))
        .catch(() => undefined);
    },
    settled: () => sent,
    end() {
      live = false;
    },
  };
}

/**
 * Invokes the call's verb; when its job pauses for input and the client can be asked, asks it
 * (MCP-50) and waits for the job's next pause or end, at most {@link MAX_QUESTIONS_PER_CALL}
 * times.
 */
async function invoked(
  runtime: Runtime,
  request: Envelope,
  context: InvocationContext,
  caller: ToolCaller,
): Promise<Envelope> {
  const { signal } = caller;
  const answer = (await runtime.invoke(request, context, { signal })).envelope;
  // a call that follows progress is told why its job's question was not asked (MCP-50)
  const asks = caller.elicit !== undefined || following(caller);
  const jobId = asks ? waitingJobOf(answer) : undefined;
  if (jobId === undefined) return answer;
  return owning(runtime, jobId, signal, async () => {
    for (let asked = 0; ; asked++) {
      const job = await runtime.jobs.wait(jobId, { orInputRequired: true, signal });
      if (job.state !== 'INPUT_REQUIRED' || job.input === undefined)
        return runtime.jobs.answer(jobId, { signal });
      if (asked === MAX_QUESTIONS_PER_CALL)
        throw waitingFailure(
          jobId,
          request.verb,
          job.input.prompt,
          `one call asks at most ${MAX_QUESTIONS_PER_CALL} questions`,
        );
      const outcome = await askCaller(runtime, jobId, job.input, caller);
      if (!outcome.asked) throw waitingFailure(jobId, request.verb, job.input.prompt, outcome.reason);
    }
  });
}

/** Runs `entry`'s verb with `args` for `caller`. @throws never: failures are results. */
export async function callTool(
  runtime: Runtime,
  entry: CatalogEntry,
  args: Record<string, unknown> | undefined,
  caller: ToolCaller,
): Promise<CallToolResult> {
  const { principal } = caller;
  const request: Envelope = {
    id: caller.callId ?? randomUUID(),
    kind: 'request',
    from: principal.id,
    to: entry.agentId,
    verb: entry.verb,
    data: verbInput(entry, args),
    ...(principal.tenantId === undefined ? {} : { tenantId: principal.tenantId }),
    ...(caller.capability === undefined ? {} : { capability: caller.capability }),
    ...(caller.traceparent === undefined ? {} : { traceparent: caller.traceparent }),
    ...(caller.traceparent === undefined || caller.tracestate === undefined
      ? {}
      : { tracestate: caller.tracestate }),
  };
  const relay = following(caller) ? progressRelay(caller) : undefined;
  const channel: CallerChannel | undefined =
    relay === undefined ? caller.channel : { ...caller.channel, progress: relay.progress };
  const context: InvocationContext = {
    face: MCP_FACE,
    principal,
    transport: caller.transport,
    // every tools/call is a distinct call (the protocol has no idempotency key)
    idempotencyKey: toolCallKey(request.id),
    idempotencyWindowMs: 0,
    ...(channel === undefined ? {} : { caller: channel }),
  };
  try {
    const answer = await invoked(runtime, request, context, caller);
    // the job's progress goes out before its result
    await relay?.settled();
    if (answer.kind === 'error') return toolFailure(errorOfAnswer(answer), answer.from || entry.agentId);
    return toolSuccess(entry, answer.data);
  } catch (error) {
    return toolFailure(toPlexusError(error), entry.agentId);
  } finally {
    relay?.end();
  }
}
