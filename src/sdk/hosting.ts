/**
 * Hosting SDK verbs on the runtime: an SDK agent becomes a runtime `AgentDefinition` whose
 * card admits both the plain input and ESRP request data (so `POST /v1/execute` reaches it)
 * and whose outputs admit a refusal; each handler gets a {@link VerbContext}.
 */
import { PlexusError } from '../core/errors.js';
import { isJsonObject, type JsonValue } from '../core/json.js';
import { cleanTracestate } from '../core/tracestate.js';
import type { AgentCapability } from '../core/records/agent-card.js';
import type { JsonSchema } from '../core/schema-validator.js';
import { checkedInput, withEsrpInput } from '../node/demo/esrp-input.js';
import { defineAgent, type AgentDefinition } from '../runtime/agents/agent.js';
import type { HandlerContext, VerbHandler } from '../runtime/context.js';
import { emitMatches } from '../runtime/effects/effect-scope.js';
import type { EventLog } from '../store/event-log.js';
import { openEventLog } from '../store/event-map.js';
import { TRACEPARENT_PATTERN } from '../store/event-input.js';
import { REFUSAL_SCHEMA, isRefusal } from './refusal.js';
import type { CallResult, InvokeOptions, VerbContext } from './verb-context.js';
import type { AgentSpec, SomeVerbDefinition } from './verb.js';

/** What hosted verbs need from their SDK instance. */
export interface HostingComponents {
  /** The node's event log (for `emit`). */
  readonly log: () => EventLog;
  /** Runs a call (for nested `invoke`). */
  readonly invoke: (verb: string, input: JsonValue, options: InvokeOptions) => Promise<CallResult>;
}

/** An output schema that also admits a refusal. */
export function withRefusal(output: JsonSchema): JsonSchema {
  if (output === true) return true;
  const plain: JsonSchema =
    isJsonObject(output) && '$schema' in output
      ? Object.fromEntries(Object.entries(output).filter(([k]) => k !== '$schema'))
      : output;
  return { $schema: 'https://json-schema.org/draft/2020-12/schema', anyOf: [plain, REFUSAL_SCHEMA] };
}

function contextOf(def: SomeVerbDefinition, h: HandlerContext, c: HostingComponents): VerbContext {
  const { envelope } = h;
  const namespace = def.name.split('.')[0] ?? def.name;
  // the span the handler runs in (the execute span when the node traces): nested calls are its children
  const traceparent = h.traceparent ?? envelope.traceparent;
  // OBS-56: and the request's tracestate, which the handler's span keeps (OBS-45)
  const tracestate = traceparent === undefined ? undefined : cleanTracestate(envelope.tracestate);
  return {
    // `signal` stays lazy: the runtime makes it only for handlers that read it
    get signal() {
      return h.signal;
    },
    jobId: h.jobId,
    envelope,
    agentId: h.agentId,
    caller: h.caller,
    ...(h.principal === undefined ? {} : { principal: h.principal }),
    deadline: h.deadline,
    attempt: h.attempt,
    traceparent,
    tenantId: envelope.tenantId,
    progress: (data) => {
      h.progress(data);
    },
    read: (resource, query) => h.read(resource, query),
    telemetry: (report) => {
      h.telemetry(report);
    },
    requestInput: (prompt, options) => h.requestInput(prompt, options),
    sample: (request) => h.sample(request),
    emit: (type, data) => {
      if (typeof type !== 'string' || !type.startsWith(`${namespace}.`)) {
        return Promise.reject(
          new PlexusError(
            'FORBIDDEN',
            `verb ${def.name} may only emit events in its namespace "${namespace}.*", not ${JSON.stringify(type)}`,
            { details: { verb: def.name, type } },
          ),
        );
      }
      // Seed 002 §3.3: a handler emits only what its verb declares under `emits`.
      if (!(def.spec.effects.emits ?? []).some((pattern) => emitMatches(pattern, type))) {
        return Promise.reject(
          new PlexusError(
            'FORBIDDEN',
            `verb ${def.name} emitted ${type}, which it does not declare: add "emits: ${type}" to its effects`,
            { details: { verb: def.name, effect: 'emits', resource: type } },
          ),
        );
      }
      // the verb's own event type (checked above against its `emits`), unknown to the event map
      return openEventLog(c.log()).append({
        type,
        data,
        causation: h.jobId,
        ...(traceparent !== undefined && TRACEPARENT_PATTERN.test(traceparent) ? { trace: traceparent } : {}),
        ...(envelope.tenantId === undefined ? {} : { tenant: envelope.tenantId }),
      });
    },
    invoke: <O = JsonValue>(verb: string, input: JsonValue, options: InvokeOptions = {}) =>
      c.invoke(verb, input, {
        causationId: h.jobId,
        signal: h.signal,
        ...(traceparent === undefined ? {} : { traceparent }),
        ...(tracestate === undefined ? {} : { tracestate }),
        ...(envelope.tenantId === undefined ? {} : { tenantId: envelope.tenantId }),
        ...(envelope.sessionId === undefined ? {} : { sessionId: envelope.sessionId }),
        ...(envelope.userId === undefined ? {} : { userId: envelope.userId }),
        ...options,
      }) as Promise<CallResult<O>>,
  };
}

function handlerOf(def: SomeVerbDefinition, c: HostingComponents): VerbHandler {
  return async (raw, h) => {
    const input = checkedInput(raw, def.spec.input);
    // the input was checked against the verb's own input schema
    const output = await def.handler(input as never, contextOf(def, h, c));
    if (isRefusal(output))
      return { $refusal: { ...output.$refusal, verb: output.$refusal.verb ?? def.name } };
    return output as JsonValue;
  };
}

/**
 * The runtime definition of an SDK agent.
 *
 * @throws PlexusError `INVALID_PARAMS` for a bad card (from `defineAgent`).
 */
export function agentDefinitionOf(spec: AgentSpec, c: HostingComponents): AgentDefinition {
  const { options } = spec;
  const capabilities: AgentCapability[] = spec.verbs.map((v) => ({
    verb: v.name,
    ...(v.spec.description === undefined ? {} : { description: v.spec.description }),
    input: withEsrpInput(v.spec.input),
    output: withRefusal(v.spec.output),
  }));
  return defineAgent({
    card: {
      id: spec.id,
      name: options.name ?? spec.id,
      version: options.version ?? '1.0.0',
      tier: options.tier ?? 'L3',
      ...(options.description === undefined ? {} : { description: options.description }),
      capabilities,
      protocols: ['esrp', 'emergence', 'jsonrpc'],
    },
    verbs: spec.verbs.map((v) => v.spec),
    create: () => Object.fromEntries(spec.verbs.map((v) => [v.name, handlerOf(v, c)])),
    ...(options.restart === undefined ? {} : { restart: options.restart }),
    ...(options.resources === undefined ? {} : { resources: options.resources }),
    ...(options.prompts === undefined ? {} : { prompts: options.prompts }),
  });
}
