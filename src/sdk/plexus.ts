/**
 * The Plexus SDK instance (seed 002 Epilogue, "the 50-line API"): host verbs, invoke them,
 * compose them into pipelines, query the registry and subscribe to events by pattern — over
 * a node started in this process, or over a bare runtime and its event log.
 */
import { randomUUID } from 'node:crypto';
import { PARENT_SPAN_EXTENSION } from '../runtime/routing/trace.js';
import type { Envelope } from '../core/envelope.js';
import { PlexusError } from '../core/errors.js';
import type { JsonValue } from '../core/json.js';
import type { AgentCard } from '../core/records/agent-card.js';
import type { Event } from '../core/records/event.js';
import type { VerbSpec } from '../core/records/verb-spec.js';
import { cleanTracestate } from '../core/tracestate.js';
import { capabilitySelector, stripVerbVersion } from '../core/verb-name.js';
import type { Node } from '../node/node.js';
import type { InvocationContext } from '../runtime/context.js';
import type { Runtime } from '../runtime/runtime-interface.js';
import type { EventLog } from '../store/event-log.js';
import { createPipeline, type Pipeline, type PipelineStep } from './compose.js';
import { agentDefinitionOf } from './hosting.js';
import { InvocationError, errorDataOf } from './invocation-error.js';
import { eventFilterOf, matchesPattern, parsePattern } from './pattern.js';
import { childTraceparent } from './trace-context.js';
import type { CallResult, InvokeOptions } from './verb-context.js';
import type { AgentSpec } from './verb.js';
import { verbInfosOf, type VerbInfo } from './verb-info.js';
import { reportWarnings } from './warnings.js';

declare module '../runtime/context.js' {
  interface FaceNames {
    /** Calls made in-process through the SDK (`plexus.invoke`). */
    readonly sdk: true;
  }
}

/** Where an SDK instance runs: a started node, or a runtime with its (started) log. */
export type PlexusInit =
  | { readonly node: Node; readonly caller?: string }
  | { readonly runtime: Runtime; readonly log: EventLog; readonly caller?: string };

/** Options of {@link Plexus.subscribe}. */
export interface SubscribeOptions {
  /** Start after this log position (0 = from the first event). @default the log's head when `subscribe` is called */
  readonly afterSeq?: number;
  /** End after this many events. @default no limit (end it with `signal` or `break`) */
  readonly limit?: number;
  /** Only events of this tenant. */
  readonly tenantId?: string;
  /** Ends the iteration cleanly. */
  readonly signal?: AbortSignal;
}

/** The SDK: the whole public surface of seed 002's Epilogue. */
export interface Plexus {
  /**
   * Hosts an agent's verbs on this node (replacing an agent with the same id).
   * @throws PlexusError `INVALID_PARAMS` for a bad card; the registry's errors.
   */
  register(agent: AgentSpec): Promise<AgentCard>;
  /**
   * Invokes a verb and resolves with its output — or its refusal, which is a result.
   * @throws InvocationError (a PlexusError with the callee's code) on an error answer;
   *   `INVALID_PARAMS` for a bad `traceparent`.
   */
  invoke<O = JsonValue>(verb: string, input: JsonValue, options?: InvokeOptions): Promise<CallResult<O>>;
  /**
   * Composes verbs into a pipeline (effects and scopes are the steps' unions).
   * @throws PlexusError `UNKNOWN_VERB` for a verb no agent offers; `INVALID_PARAMS` for none.
   */
  compose(...steps: PipelineStep[]): Pipeline;
  /**
   * The verbs whose name matches `pattern` (`soul.*`, `soul.memory.*`, an exact name, `*`),
   * sorted by verb then agent.
   * @throws PlexusError `INVALID_PARAMS` for a bad pattern.
   */
  query(pattern: string): readonly VerbInfo[];
  /**
   * The log's events whose type matches `pattern`, live from now (or from `afterSeq`), until
   * `limit`, `signal`, a `break`, or the node stopping. Memory stays bounded whatever the
   * consumer's speed (a slow consumer re-reads from the log).
   * @throws PlexusError `INVALID_PARAMS` for a bad pattern (at once) or option (first `next()`).
   */
  subscribe(pattern: string, options?: SubscribeOptions): AsyncIterable<Event>;
}

/** The caller id of SDK calls when none is given. */
export const DEFAULT_SDK_CALLER = 'sdk';

/**
 * Creates an SDK instance over a node (started before the first call) or a runtime and log.
 *
 * @example
 * const node = createNode({ dataDir, port: 0, dev: true });
 * await node.start();
 * const plexus = createPlexus({ node });
 * await plexus.register(agent('soul', [recall]));
 * const crystal = await plexus.invoke('soul.memory.recall', { query: 'last conversation' });
 */
export function createPlexus(init: PlexusInit): Plexus {
  const caller = init.caller ?? DEFAULT_SDK_CALLER;
  const runtime = (): Runtime => ('node' in init ? init.node.runtime : init.runtime);
  const log = (): EventLog => ('node' in init ? init.node.log : init.log);

  const invoke = async <O = JsonValue>(
    verb: string,
    input: JsonValue,
    options: InvokeOptions = {},
  ): Promise<CallResult<O>> => {
    const traceparent = childTraceparent(options.traceparent);
    // OBS-45, OBS-56: the caller's tracestate goes with its traceparent (a malformed one is dropped)
    const tracestate = options.traceparent === undefined ? undefined : cleanTracestate(options.tracestate);
    const id = randomUUID();
    const envelope: Envelope = {
      id,
      kind: 'request',
      from: caller,
      to: options.to ?? capabilitySelector(verb),
      verb,
      data: input,
      traceparent,
      ...(tracestate === undefined ? {} : { tracestate }),
      timestamp: new Date().toISOString(),
      ...(options.causationId === undefined ? {} : { causationId: options.causationId }),
      ...(options.tenantId === undefined ? {} : { tenantId: options.tenantId }),
      ...(options.userId === undefined ? {} : { userId: options.userId }),
      ...(options.sessionId === undefined ? {} : { sessionId: options.sessionId }),
      ...(options.capability === undefined ? {} : { capability: options.capability }),
      // the caller's span is this call's parent (compose: the pipeline's span)
      ...(options.traceparent === undefined
        ? {}
        : { extensions: { [PARENT_SPAN_EXTENSION]: options.traceparent.split('-')[2] ?? '' } }),
    };
    const context: InvocationContext = {
      face: 'sdk',
      principal: {
        id: caller,
        kind: 'local',
        ...(options.tenantId === undefined ? {} : { tenantId: options.tenantId }),
      },
      ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
      // every call runs unless the caller names a key to deduplicate on (not the payload hash)
      idempotencyKey: options.idempotencyKey ?? id,
    };
    const answer = await runtime().invoke(
      envelope,
      context,
      options.signal === undefined ? {} : { signal: options.signal },
    );
    reportWarnings(options, answer.warnings);
    if (answer.envelope.kind === 'error') {
      throw new InvocationError(errorDataOf(answer.envelope.data), {
        verb,
        traceparent,
        ...(answer.job === undefined ? {} : { jobId: answer.job.id }),
      });
    }
    return answer.envelope.data as CallResult<O>;
  };

  const describe = (verb: string): VerbSpec => {
    const registry = runtime().agents.registry;
    const name = stripVerbVersion(verb);
    for (const card of registry.byCapability(verb)) {
      const spec = registry.verbSpec(card.id, name);
      if (spec !== undefined) return spec;
    }
    const offered = registry
      .byCapability(verb)[0]
      ?.capabilities.find((c) => stripVerbVersion(c.verb) === name);
    if (offered === undefined) {
      throw new PlexusError(
        'UNKNOWN_VERB',
        `no agent on this node offers ${verb}; register it before composing`,
        {
          details: { verb },
        },
      );
    }
    // A verb registered without a spec: its schemas, no declared effects or scopes.
    return {
      name,
      version: 1,
      status: 'stable',
      input: offered.input,
      output: offered.output,
      effects: {},
      capabilities: [],
      category: 'mutation',
      deterministic: false,
    };
  };

  const plexus: Plexus = {
    register: (spec) => runtime().agents.add(agentDefinitionOf(spec, { log, invoke })),
    invoke,
    compose: (...steps) => createPipeline(steps, { describe, invoke: (v, i, o) => invoke(v, i, o) }),
    query: (pattern) => {
      const parsed = parsePattern(pattern);
      const registry = runtime().agents.registry;
      return verbInfosOf(registry.list(), (agentId, verb) => registry.verbSpec(agentId, verb)).filter((v) =>
        matchesPattern(parsed, v.verb),
      );
    },
    subscribe: (pattern, options = {}) => {
      const filter = {
        ...eventFilterOf(parsePattern(pattern)),
        ...(options.tenantId === undefined ? {} : { tenant: options.tenantId }),
      };
      if (options.limit !== undefined && (!Number.isSafeInteger(options.limit) || options.limit < 1)) {
        throw new PlexusError('INVALID_PARAMS', 'subscribe limit must be a whole number ≥ 1', {
          details: { pointer: '/limit' },
        });
      }
      const source = log();
      // Read the head now, so events appended after subscribe() returns are not missed.
      const start = options.afterSeq === undefined ? source.head().then((h) => h.seq) : options.afterSeq;
      const limit = options.limit ?? Number.POSITIVE_INFINITY;
      return {
        async *[Symbol.asyncIterator]() {
          let seen = 0;
          const subscribeOptions = options.signal === undefined ? {} : { signal: options.signal };
          for await (const event of source.subscribe(await start, filter, subscribeOptions)) {
            yield event;
            if (++seen >= limit) return;
          }
        },
      };
    },
  };
  return plexus;
}
