/**
 * The runtime call behind `tool.invoke`: the tool's verb runs as a child request of the
 * `tool.invoke` job — same caller, principal, tenant, session and trace (a child span), causation = the
 * job, the job's deadline, cancelled with it — through the whole runtime pipeline.
 */
import { randomUUID } from 'node:crypto';
import type { Envelope } from '../../core/envelope.js';
import { PlexusError, type ErrorData } from '../../core/errors.js';
import { capabilitySelector } from '../../core/verb-name.js';
import type { Runtime } from '../../runtime/index.js';
import { TARGET_EXTENSION } from '../../runtime/routing/index.js';
import { asChildSpan } from '../../runtime/routing/trace.js';
import type { ToolCall } from './tool-primitive.js';

/** The idempotency key of the child call of a `tool.invoke` job: one run per job. */
export function toolCallKey(jobId: string): string {
  return `tool.invoke:${jobId}`;
}

/**
 * A {@link ToolCall} over a runtime. The runtime is looked up at call time, so the primitive
 * can be created before the runtime that hosts it.
 *
 * @example
 * let runtime: Runtime | undefined;
 * const tool = toolPrimitive({ log, invoke: runtimeToolCall(() => runtime!) });
 * runtime = createRuntime({ log, agents: [tool.agent, searchAgent] });
 */
export function runtimeToolCall(runtimeOf: () => Runtime): ToolCall {
  return async (verb, params, ctx, options = {}) => {
    const parent = ctx.envelope;
    const sessionId = options.sessionId ?? parent.sessionId;
    // A child span of the tool.invoke job's span: same trace, new span id, parent span named.
    const request: Envelope = asChildSpan(parent, {
      id: randomUUID(),
      kind: 'request',
      from: ctx.caller,
      to: options.agent ?? capabilitySelector(verb),
      verb,
      data: params,
      causationId: ctx.jobId,
      deadline: new Date(ctx.deadline).toISOString(),
      ...(parent.tenantId === undefined ? {} : { tenantId: parent.tenantId }),
      ...(parent.userId === undefined ? {} : { userId: parent.userId }),
      ...(parent.traceparent === undefined ? {} : { traceparent: parent.traceparent }),
      ...(sessionId === undefined ? {} : { sessionId }),
      ...(options.target === undefined ? {} : { extensions: { [TARGET_EXTENSION]: options.target } }),
    });
    const { envelope } = await runtimeOf().invoke(
      request,
      {
        face: 'internal',
        idempotencyKey: toolCallKey(ctx.jobId),
        ...(ctx.principal === undefined ? {} : { principal: ctx.principal }),
      },
      { signal: ctx.signal },
    );
    if (envelope.kind === 'error') throw PlexusError.fromData(envelope.data as unknown as ErrorData);
    return envelope.data;
  };
}
