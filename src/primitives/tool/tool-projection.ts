/**
 * The tool registry of the Hyperspace tool primitive (seed 003 §4.3) as a projection of the
 * event log (D9): `tool.registered` adds or updates a tool, `tool.invoked` records one
 * invocation's outcome and duration. Reputation and analytics are computed from what the
 * events recorded, never from a clock: ids, times and durations are decided by the handler
 * and written into the event data.
 */
import { PlexusError } from '../../core/errors.js';
import type { JsonObject, JsonValue } from '../../core/json.js';
import type { Event } from '../../core/records/event.js';
import type { Projection } from '../../store/projection.js';
import { eventOf, type EventType } from '../../store/event-map.js';

/** The event types of the tool primitive. */
export const TOOL_EVENTS = {
  registered: 'tool.registered',
  invoked: 'tool.invoked',
} as const satisfies Readonly<Record<string, EventType>>;

declare module '../../store/event-map.js' {
  /** The tool primitive's events (`TOOL_EVENTS`). */
  interface EventMap {
    'tool.registered': ToolRegisteredData;
    'tool.invoked': ToolInvokedData;
  }
}

/** The projection name of the tool registry. */
export const TOOL_REGISTRY_PROJECTION_NAME = 'tool.registry';

/** A tool's input and output JSON Schemas, as registered. */
export interface ToolSchema {
  readonly input: JsonValue;
  readonly output: JsonValue;
}

/** The data of a `tool.registered` event. */
export interface ToolRegisteredData {
  readonly toolId: string;
  readonly name: string;
  readonly description: string;
  readonly schema: ToolSchema;
  readonly capabilities: readonly string[];
  /** The Plexus verb that implements the tool. */
  readonly verb: string;
  /** The agent addressed, when the tool is bound to one agent (else whoever offers the verb). */
  readonly agent?: string;
  /** Where the tool runs (`us-east`), when known. */
  readonly geo?: string;
  /** The registered reputation prior, 0…1. */
  readonly prior: number;
  /** The peer that runs it (the node's id). */
  readonly peerId: string;
  /** Who registered it (principal id, else the caller's agent id). */
  readonly owner: string;
  /** When, ISO 8601. */
  readonly at: string;
}

/** The data of a `tool.invoked` event. */
export interface ToolInvokedData {
  readonly toolId: string;
  readonly jobId: string;
  readonly ok: boolean;
  /** Wall time of the call, whole ms. */
  readonly duration: number;
  /** The Plexus error code of a failure. */
  readonly errorCode?: string;
  readonly sessionId?: string;
  readonly at: string;
}

/** A registered tool with its counters. */
export interface ToolRecord extends ToolRegisteredData {
  readonly registeredAt: string;
  readonly invocations: number;
  readonly successes: number;
  /** Sum of every recorded duration, ms. */
  readonly totalDuration: number;
  readonly lastInvokedAt?: string;
  /** A mesh tool's: the ping round trip this node measured to its peer, ms (never recorded in events). */
  readonly latencyMs?: number;
  /** A tool registered on a mesh peer: its id there (MESH-46). */
  readonly peerToolId?: string;
}

/** The registry: tools by id, and the id of each owner's tool of a given name. */
export interface ToolRegistryState {
  readonly tools: Map<string, ToolRecord>;
  /** `JSON.stringify([owner, name])` → toolId (re-registering a name updates that tool). */
  readonly byOwnerName: Map<string, string>;
}

/** The key of a tool in {@link ToolRegistryState.byOwnerName}. */
export function ownerNameKey(owner: string, name: string): string {
  return JSON.stringify([owner, name]);
}

function asObject(event: Event): JsonObject {
  const data = event.data;
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    throw new PlexusError('INTERNAL', `${event.type} event data must be an object`);
  }
  return data;
}

function applyRegistered(state: ToolRegistryState, data: ToolRegisteredData): void {
  const before = state.tools.get(data.toolId);
  const record: ToolRecord = {
    ...data,
    registeredAt: before?.registeredAt ?? data.at,
    invocations: before?.invocations ?? 0,
    successes: before?.successes ?? 0,
    totalDuration: before?.totalDuration ?? 0,
    ...(before?.lastInvokedAt === undefined ? {} : { lastInvokedAt: before.lastInvokedAt }),
  };
  state.tools.set(data.toolId, record);
  state.byOwnerName.set(ownerNameKey(data.owner, data.name), data.toolId);
}

function applyInvoked(state: ToolRegistryState, data: ToolInvokedData): void {
  const tool = state.tools.get(data.toolId);
  if (tool === undefined) return; // an invocation of a tool this log does not know: nothing to count
  state.tools.set(data.toolId, {
    ...tool,
    invocations: tool.invocations + 1,
    successes: tool.successes + (data.ok ? 1 : 0),
    totalDuration: tool.totalDuration + data.duration,
    lastInvokedAt: data.at,
  });
}

/** The tool registry projection. */
export const toolRegistryProjection: Projection<ToolRegistryState> = {
  name: TOOL_REGISTRY_PROJECTION_NAME,
  version: 1,
  filter: { type: [TOOL_EVENTS.registered, TOOL_EVENTS.invoked] },
  initial: () => ({ tools: new Map(), byOwnerName: new Map() }),
  apply(state, event) {
    asObject(event); // a foreign log's non-object data fails here, as before
    const registered = eventOf(event, TOOL_EVENTS.registered);
    const invoked = registered === undefined ? eventOf(event, TOOL_EVENTS.invoked) : undefined;
    if (registered !== undefined) applyRegistered(state, registered.data);
    else if (invoked !== undefined) applyInvoked(state, invoked.data);
    return state;
  },
  toJson(state) {
    const tools = [...state.tools.values()]
      .sort((a, b) => (a.toolId < b.toolId ? -1 : a.toolId > b.toolId ? 1 : 0))
      .map((t) => t as unknown as JsonValue);
    const byOwnerName = [...state.byOwnerName.entries()]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([key, id]) => [key, id]);
    return { tools, byOwnerName };
  },
  fromJson(json) {
    const o = json as unknown as { tools: ToolRecord[]; byOwnerName: [string, string][] };
    return {
      tools: new Map(o.tools.map((t) => [t.toolId, t])),
      byOwnerName: new Map(o.byOwnerName),
    };
  },
};

/** Options of the reputation blend. */
export interface ReputationOptions {
  /** How many observed calls the registered prior weighs as. @default 10 */
  readonly priorWeight?: number;
}

/** The default weight of the registered prior, in observed calls. */
export const DEFAULT_PRIOR_WEIGHT = 10;

function round4(x: number): number {
  return Math.round(x * 10_000) / 10_000;
}

/**
 * A tool's reputation, 0…1: the registered prior blended with the observed success rate,
 * `(prior·w + successes) / (w + invocations)` — the prior counts as `w` calls, so a new tool
 * starts at its prior and real calls take over as they accumulate. Rounded to 4 decimals.
 */
export function reputationOf(tool: ToolRecord, options: ReputationOptions = {}): number {
  const w = options.priorWeight ?? DEFAULT_PRIOR_WEIGHT;
  const total = w + tool.invocations;
  return total === 0 ? round4(tool.prior) : round4((tool.prior * w + tool.successes) / total);
}

/** The average recorded duration, whole ms (0 before any call). */
export function avgLatencyOf(tool: ToolRecord): number {
  return tool.invocations === 0 ? 0 : Math.round(tool.totalDuration / tool.invocations);
}

/** Successful calls over all recorded calls, 4 decimals (0 before any call). */
export function successRateOf(tool: ToolRecord): number {
  return tool.invocations === 0 ? 0 : round4(tool.successes / tool.invocations);
}
