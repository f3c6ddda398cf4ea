/**
 * The Hyperspace tool primitive (seed 003 §4.3): `tool.register`, `tool.discover`,
 * `tool.invoke`, `tool.getAnalytics`, `tool.listRegistered`.
 *
 * A registered tool names the Plexus verb (and optionally the agent) that implements it;
 * `tool.invoke` runs that verb through the runtime (an injected call, since the primitive is
 * itself an agent of the runtime it calls), measures it, and records the outcome and duration
 * as a `tool.invoked` event. Analytics and reputation are folded from those events.
 */
import { randomBytes } from 'node:crypto';
import { PlexusError } from '../../core/errors.js';
import { isJsonObject, type JsonValue } from '../../core/json.js';
import type { Problem } from '../../core/problem.js';
import { schemaValidator, throwIfProblems, type JsonSchema } from '../../core/schema-validator.js';
import { isVerbName, verbNameProblem } from '../../core/verb-name.js';
import type { HandlerContext } from '../../runtime/index.js';
import type { EventInput } from '../../store/event-log.js';
import { projectionView } from '../../store/projection-view.js';
import { keyedLock } from '../keyed-lock.js';
import { definePrimitive, type Primitive, type PrimitiveComponents } from '../primitive.js';
import { toolFailure } from './tool-failure.js';
import {
  DEFAULT_PRIOR_WEIGHT,
  TOOL_EVENTS,
  avgLatencyOf,
  ownerNameKey,
  successRateOf,
  toolRegistryProjection,
  type ToolInvokedData,
  type ToolRecord,
  type ToolRegisteredData,
  type ToolSchema,
} from './tool-projection.js';
import {
  ANALYTICS_INPUT,
  ANALYTICS_OUTPUT,
  DISCOVER_INPUT,
  DISCOVER_OUTPUT,
  INVOKE_INPUT,
  INVOKE_OUTPUT,
  LIST_INPUT,
  LIST_OUTPUT,
  REGISTER_INPUT,
  REGISTER_OUTPUT,
} from './tool-schemas.js';
import { discoverTools, toolInfo, type ToolQuery } from './tool-search.js';
import {
  REMOTE_TOOL_PREFIX,
  remoteRecord,
  remoteToolStatsProjection,
  type RemoteToolSource,
} from './remote-tools.js';

/** Where and how a tool's verb is called. */
export interface ToolCallOptions {
  /** The agent to address (else whoever offers the verb). */
  readonly agent?: string;
  /** The Hyperspace session the call belongs to. */
  readonly sessionId?: string;
  /** Where to route the call (`p2p://<PeerId>/<agent>` for a remote tool). @default the router's choice */
  readonly target?: string;
}

/**
 * Runs a tool's verb with `params` on behalf of the `tool.invoke` job described by `context`,
 * resolving with the verb's output.
 * @throws PlexusError the verb's failure (its code kept).
 */
export type ToolCall = (
  verb: string,
  params: JsonValue,
  context: HandlerContext,
  options?: ToolCallOptions,
) => Promise<JsonValue>;

/** Dependencies of the tool primitive. */
export interface ToolComponents extends PrimitiveComponents {
  /** Calls the runtime (see `runtimeToolCall`). */
  readonly invoke: ToolCall;
  /** The tools of mesh peers (see `registryRemoteTools`). Absent = this node's tools only. */
  readonly remote?: RemoteToolSource;
}

/** The principal kind of a call from another node (the peer face's and the mesh's). */
const PEER_PRINCIPAL_KIND = 'peer';

/** Options of the tool primitive. */
export interface ToolInit {
  /** The `peerId` of tools registered here (the node's id). @default 'local' */
  readonly peerId?: string;
  /** The region of tools registered without one (`us-east`). @default none */
  readonly geo?: string;
  /** The reputation prior of tools registered without `reputation`. @default 0.5 */
  readonly defaultReputation?: number;
  /** How many observed calls the registered prior weighs as. @default 10 */
  readonly priorWeight?: number;
}

/** The projections of the tool primitive (for `plexus replay --verify`). */
export const TOOL_PROJECTIONS = [toolRegistryProjection, remoteToolStatsProjection] as const;

interface RegisterInput {
  readonly name: string;
  readonly description: string;
  readonly schema: ToolSchema;
  readonly capabilities: readonly string[];
  readonly verb?: string;
  readonly agent?: string;
  readonly geo?: string;
  readonly reputation?: number;
}

interface InvokeInput {
  readonly toolId: string;
  readonly params: JsonValue;
  readonly sessionId?: string;
}

function eventMeta(ctx: HandlerContext): Omit<EventInput, 'type' | 'data'> {
  const { envelope } = ctx;
  return {
    causation: envelope.id,
    ...(envelope.tenantId === undefined ? {} : { tenant: envelope.tenantId }),
    ...(envelope.traceparent === undefined ? {} : { trace: envelope.traceparent }),
  };
}

function checkSchemas(schema: ToolSchema): void {
  const problems = [];
  for (const part of ['input', 'output'] as const) {
    try {
      schemaValidator().compile(schema[part] as JsonSchema);
    } catch (error) {
      problems.push({ pointer: `/schema/${part}`, message: (error as Error).message });
    }
  }
  throwIfProblems(problems, 'tool.register params');
}

function verbOf(input: RegisterInput): string {
  const verb = input.verb ?? input.name;
  const pointer = input.verb === undefined ? '/name' : '/verb';
  const problem =
    input.verb === undefined && !isVerbName(verb)
      ? `the tool name ${JSON.stringify(verb)} is not a Plexus verb, so give "verb": the verb that implements the tool (e.g. "search.web")`
      : verbNameProblem(verb);
  if (problem !== undefined) throwIfProblems([{ pointer, message: problem }], 'tool.register params');
  if (verb.startsWith('tool.')) {
    throwIfProblems(
      [{ pointer, message: `a tool cannot be implemented by the tool primitive's own verb ${verb}` }],
      'tool.register params',
    );
  }
  return verb;
}

/**
 * The problems of `params` against the tool's input schema. A remote tool's schema comes from
 * another peer's card: one this node cannot compile is left to the owner, which checks the
 * call against its own verb (MESH-28).
 */
function paramProblems(tool: ToolRecord, params: JsonValue, remote: boolean): Problem[] {
  try {
    return schemaValidator()
      .validate(tool.schema.input as JsonSchema, params)
      .map((p) => ({ pointer: `/params${p.pointer}`, message: p.message }));
  } catch (error) {
    if (remote) return [];
    throw error;
  }
}

/**
 * Creates the tool primitive.
 *
 * @throws PlexusError `INVALID_PARAMS` for a bad option.
 * @example
 * const tool = toolPrimitive({ log, invoke: runtimeToolCall(() => runtime) }, { peerId: nodeId });
 */
export function toolPrimitive(components: ToolComponents, init: ToolInit = {}): Primitive {
  const { log } = components;
  const now = components.now ?? Date.now;
  const peerId = init.peerId ?? 'local';
  const defaultPrior = init.defaultReputation ?? 0.5;
  const priorWeight = init.priorWeight ?? DEFAULT_PRIOR_WEIGHT;
  if (!(defaultPrior >= 0 && defaultPrior <= 1)) {
    throw new PlexusError('INVALID_PARAMS', `defaultReputation must be within 0…1, got ${defaultPrior}`);
  }
  if (!Number.isFinite(priorWeight) || priorWeight < 0) {
    throw new PlexusError('INVALID_PARAMS', `priorWeight must be a number ≥ 0, got ${priorWeight}`);
  }
  const rep = { priorWeight };
  const view = projectionView({ log, projection: toolRegistryProjection });
  const remoteStats = projectionView({ log, projection: remoteToolStatsProjection });
  const lock = keyedLock();
  const { remote } = components;

  /** A call from another node is served this node's own tools only (no relaying). */
  const fromPeer = (ctx: HandlerContext): boolean => ctx.principal?.kind === PEER_PRINCIPAL_KIND;

  /** The remote tools as records: prior the default reputation, calls as this node recorded them. */
  const remoteRecords = (): ToolRecord[] =>
    (remote?.tools() ?? []).map((t) => remoteRecord(t, defaultPrior, remoteStats.state().get(t.toolId)));

  const toolOf = (toolId: string, ctx: HandlerContext): ToolRecord => {
    const tool =
      view.state().tools.get(toolId) ??
      (toolId.startsWith(REMOTE_TOOL_PREFIX) && !fromPeer(ctx)
        ? remoteRecords().find((t) => t.toolId === toolId)
        : undefined);
    if (tool === undefined) {
      if (toolId.startsWith(REMOTE_TOOL_PREFIX) && fromPeer(ctx)) {
        throw new PlexusError(
          'NOT_FOUND',
          `${JSON.stringify(toolId)} is a mesh tool of another peer; a peer is served only this node's own tools`,
          { details: { toolId, pointer: '/toolId' } },
        );
      }
      if (toolId.startsWith(REMOTE_TOOL_PREFIX) && remote !== undefined) {
        throw new PlexusError(
          'NOT_FOUND',
          `no mesh peer announces the tool ${JSON.stringify(toolId)} any more; tool.discover lists the tools found now`,
          { details: { toolId, pointer: '/toolId' } },
        );
      }
      throw new PlexusError(
        'NOT_FOUND',
        `no tool ${JSON.stringify(toolId)} is registered on this node; tool.discover and tool.listRegistered list the tools`,
        { details: { toolId, pointer: '/toolId' } },
      );
    }
    return tool;
  };

  const register = async (raw: JsonValue, ctx: HandlerContext): Promise<JsonValue> => {
    const input = raw as unknown as RegisterInput;
    const verb = verbOf(input);
    checkSchemas(input.schema);
    const owner = ctx.principal?.id ?? ctx.caller;
    const key = ownerNameKey(owner, input.name);
    return lock.run(key, async () => {
      const toolId = view.state().byOwnerName.get(key) ?? `tool-${randomBytes(6).toString('hex')}`;
      const geo = input.geo ?? init.geo;
      const data: ToolRegisteredData = {
        toolId,
        name: input.name,
        description: input.description,
        schema: { input: input.schema.input, output: input.schema.output },
        capabilities: [...input.capabilities],
        verb,
        ...(input.agent === undefined ? {} : { agent: input.agent }),
        ...(geo === undefined ? {} : { geo }),
        prior: input.reputation ?? defaultPrior,
        peerId,
        owner,
        at: new Date(now()).toISOString(),
      };
      const event = await log.append({
        type: TOOL_EVENTS.registered,
        data,
        ...eventMeta(ctx),
      });
      await view.waitFor(event.seq);
      return { toolId };
    });
  };

  const discover = async (raw: JsonValue, ctx: HandlerContext): Promise<JsonValue> => {
    const q = raw as unknown as ToolQuery;
    if (remote === undefined || fromPeer(ctx)) return { tools: discoverTools(view.state(), q, rep) };
    const search = (): JsonValue[] => {
      const tools = new Map(view.state().tools);
      for (const t of remoteRecords()) if (!tools.has(t.toolId)) tools.set(t.toolId, t);
      return discoverTools({ tools, byOwnerName: new Map() }, q, rep);
    };
    const found = search();
    if (found.length > 0) return { tools: found };
    // MESH-28: no tool here matches; ask the DHT for providers of the verbs the query names
    await remote.discover([...(q.capabilities ?? []), q.query.trim()], ctx.signal);
    return { tools: search() };
  };

  const invoke = async (raw: JsonValue, ctx: HandlerContext): Promise<JsonValue> => {
    const input = raw as unknown as InvokeInput;
    const tool = toolOf(input.toolId, ctx);
    const remoteTool = tool.toolId.startsWith(REMOTE_TOOL_PREFIX) && !view.state().tools.has(tool.toolId);
    const problems = paramProblems(tool, input.params, remoteTool);
    throwIfProblems(problems, `params of tool "${tool.name}" (${tool.toolId})`);
    const started = now();
    let result: JsonValue = null;
    let failure: unknown;
    let failed = false;
    try {
      if (remoteTool && tool.peerToolId !== undefined) {
        // MESH-46: a tool registered on the peer runs through the peer's own tool.invoke
        const far = await components.invoke(
          'tool.invoke',
          {
            toolId: tool.peerToolId,
            params: input.params,
            ...(input.sessionId === undefined ? {} : { sessionId: input.sessionId }),
          },
          ctx,
          { agent: 'tool', target: `p2p://${tool.peerId}/tool` },
        );
        result = isJsonObject(far) && 'result' in far ? (far['result'] ?? null) : null;
      } else {
        result = await components.invoke(tool.verb, input.params, ctx, {
          ...(tool.agent === undefined ? {} : { agent: tool.agent }),
          ...(input.sessionId === undefined ? {} : { sessionId: input.sessionId }),
          // on the peer that owns it, over /plexus/rpc/1.0.0 (MESH-28)
          ...(remoteTool ? { target: `p2p://${tool.peerId}/${tool.agent ?? ''}` } : {}),
        });
      }
    } catch (error) {
      failed = true;
      failure = toolFailure(tool, error);
    }
    const ended = now();
    const duration = Math.max(0, Math.round(ended - started));
    const data: ToolInvokedData = {
      toolId: tool.toolId,
      jobId: ctx.jobId,
      ok: !failed,
      duration,
      ...(failure instanceof PlexusError ? { errorCode: failure.code } : {}),
      ...(input.sessionId === undefined ? {} : { sessionId: input.sessionId }),
      at: new Date(ended).toISOString(),
    };
    const event = await log.append({
      type: TOOL_EVENTS.invoked,
      data,
      ...eventMeta(ctx),
    });
    await (remoteTool ? remoteStats : view).waitFor(event.seq);
    if (failed) throw failure;
    return { result, duration, peerId: tool.peerId };
  };

  const analytics = (raw: JsonValue, ctx: HandlerContext): JsonValue => {
    const tool = toolOf((raw as { toolId: string }).toolId, ctx);
    return {
      invocations: tool.invocations,
      avgLatency: avgLatencyOf(tool),
      successRate: successRateOf(tool),
    };
  };

  const list = (): JsonValue => {
    const tools = [...view.state().tools.values()].sort(
      (a, b) =>
        (a.name < b.name ? -1 : a.name > b.name ? 1 : 0) ||
        (a.toolId < b.toolId ? -1 : a.toolId > b.toolId ? 1 : 0),
    );
    return { tools: tools.map((t) => toolInfo(t, rep)) };
  };

  return definePrimitive({
    name: 'tool',
    title: 'Hyperspace tool',
    views: [view, remoteStats],
    methods: [
      {
        method: 'register',
        description:
          'Registers a tool (name, description, schema, capabilities) implemented by a Plexus verb; answers {toolId}.',
        input: REGISTER_INPUT,
        output: REGISTER_OUTPUT,
        category: 'mutation',
        effects: { writes: ['tool/registry'] },
        deterministic: false,
        handler: register,
      },
      {
        method: 'discover',
        description:
          "Finds tools — this node's and mesh peers' verbs — by text, capabilities, minimum reputation, maximum latency and region, ranked by reputation.",
        input: DISCOVER_INPUT,
        output: DISCOVER_OUTPUT,
        category: 'query',
        effects: { reads: ['tool/registry'] },
        handler: discover,
      },
      {
        method: 'invoke',
        description:
          "Runs a tool's verb with params (a mesh tool on its owning peer); answers {result, duration, peerId} and records the call.",
        input: INVOKE_INPUT,
        output: INVOKE_OUTPUT,
        category: 'mutation',
        effects: { reads: ['tool/registry'], writes: ['tool/analytics'], calls: ['verb/*'] },
        deterministic: false,
        handler: invoke,
      },
      {
        method: 'getAnalytics',
        description: "A tool's recorded invocations, average latency (ms) and success rate.",
        input: ANALYTICS_INPUT,
        output: ANALYTICS_OUTPUT,
        category: 'query',
        effects: { reads: ['tool/registry', 'tool/analytics'] },
        handler: analytics,
      },
      {
        method: 'listRegistered',
        description: 'Every tool registered on this node.',
        input: LIST_INPUT,
        output: LIST_OUTPUT,
        category: 'query',
        effects: { reads: ['tool/registry'] },
        handler: list,
      },
    ],
  });
}
