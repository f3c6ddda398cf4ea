/**
 * The eight Hyperspace primitives (seed 003 §4–6) as a node hosts them: created over the
 * node's event log, started before the runtime (their views catch up with the log) and
 * stopped after it, registered as ordinary agents, their JSON-RPC method names mapped onto
 * verbs for the WebSocket face, and their projections checked by `plexus replay --verify`.
 */
import type { Projection } from '../store/projection.js';
import type { EventLog, SignalOptions } from '../store/event-log.js';
import type { Runtime } from '../runtime/index.js';
import type { AgentDefinition } from '../runtime/index.js';
import type { Primitive } from '../primitives/primitive.js';
import { STATE_PROJECTIONS, statePrimitive } from '../primitives/state/index.js';
import { GUARD_PROJECTIONS, guardPrimitive } from '../primitives/guard/index.js';
import {
  TOOL_PROJECTIONS,
  registryRemoteTools,
  runtimeToolCall,
  toolPrimitive,
} from '../primitives/tool/index.js';
import { MEMORY_PROJECTIONS, memoryPrimitive } from '../primitives/memory/index.js';
import { RECURSIVE_PROJECTIONS, recursivePrimitive } from '../primitives/recursive/index.js';
import { LEARNING_PROJECTIONS, learningPrimitive } from '../primitives/learning/index.js';
import {
  IMPROVING_PROJECTIONS,
  improvingPrimitive,
  trajectoryGossip,
  type TrajectoryGossip,
} from '../primitives/improving/index.js';
import { MICROPAYMENTS_PROJECTIONS, micropaymentsPrimitive } from '../primitives/micropayments/index.js';
import { late } from './late.js';
import {
  HYPERSPACE_PRIMITIVES,
  checkPrimitiveNames,
  type HyperspacePrimitiveName,
} from './primitive-names.js';

export {
  HYPERSPACE_PRIMITIVES,
  checkPrimitiveNames,
  type HyperspacePrimitiveName,
} from './primitive-names.js';

/** Every projection of every primitive, for `plexus replay --verify`. */
export const HYPERSPACE_PROJECTIONS: readonly Projection<unknown>[] = [
  ...STATE_PROJECTIONS,
  ...GUARD_PROJECTIONS,
  ...TOOL_PROJECTIONS,
  ...MEMORY_PROJECTIONS,
  ...RECURSIVE_PROJECTIONS,
  ...LEARNING_PROJECTIONS,
  ...IMPROVING_PROJECTIONS,
  ...MICROPAYMENTS_PROJECTIONS,
];

/** What the node gives the primitives. */
export interface HyperspaceComponents {
  readonly log: EventLog;
  /** The node's id (its did:key). */
  readonly nodeId: string;
  /**
   * The node key's libp2p PeerId (D2), the `peerId` the tool and improving primitives answer
   * with, as the mesh names the node. @default nodeId
   */
  readonly peerId?: string;
  readonly now?: () => number;
}

/** The primitives a node hosts. */
export interface HyperspaceHost {
  /** The hosted primitives. */
  readonly primitives: readonly Primitive[];
  /** Their agents, for the runtime. */
  readonly agents: readonly AgentDefinition[];
  /** The seam where the mesh face plugs trajectory gossip in, when `improving` is hosted. */
  readonly trajectories?: TrajectoryGossip;
  /** JSON-RPC method → verb, for the WebSocket face. */
  readonly methods: Readonly<Record<string, string>>;
  /** Starts every primitive's views. */
  start(options?: SignalOptions): Promise<void>;
  /** Stops them. Safe to call twice. */
  stop(): Promise<void>;
  /**
   * Hands the primitives the runtime that hosts them, once it exists (the tool primitive
   * invokes tools through it; before, `tool.invoke` is refused `UNAVAILABLE`).
   * @throws PlexusError `INTERNAL` when called twice.
   */
  attach(runtime: Runtime): void;
}

/**
 * Creates the primitives `which` names (all eight for `true`, none for `false`). `guard` and
 * `recursive` need `state` (they check sessions): asking for either brings `state` in.
 *
 * @throws PlexusError `INVALID_PARAMS` for an unknown name.
 */
export function hyperspaceHost(
  components: HyperspaceComponents,
  which: boolean | readonly string[],
): HyperspaceHost {
  const wanted = new Set<HyperspacePrimitiveName>(
    which === true ? HYPERSPACE_PRIMITIVES : which === false ? [] : checkPrimitiveNames(which),
  );
  if (wanted.has('guard') || wanted.has('recursive')) wanted.add('state');
  const { log, nodeId } = components;
  const peerId = components.peerId ?? nodeId;
  const base = components.now === undefined ? { log } : { log, now: components.now };
  const runtime = late<Runtime>('the runtime');
  const list: Primitive[] = [];
  const state = wanted.has('state') ? statePrimitive(base) : undefined;
  if (state !== undefined) list.push(state);
  if (state !== undefined && wanted.has('guard'))
    list.push(guardPrimitive({ ...base, sessions: state.sessions }));
  if (wanted.has('tool')) {
    list.push(
      toolPrimitive(
        { ...base, invoke: runtimeToolCall(runtime.get), remote: registryRemoteTools(runtime.get) },
        { peerId },
      ),
    );
  }
  if (wanted.has('memory')) list.push(memoryPrimitive({ ...base, peerId: nodeId }));
  if (state !== undefined && wanted.has('recursive')) {
    list.push(recursivePrimitive({ ...base, sessions: state.sessions }));
  }
  if (wanted.has('learning')) list.push(learningPrimitive(base));
  const trajectories = wanted.has('improving') ? trajectoryGossip() : undefined;
  if (trajectories !== undefined) list.push(improvingPrimitive(base, { peerId, gossip: trajectories }));
  if (wanted.has('micropayments')) list.push(micropaymentsPrimitive(base));
  const methods: Record<string, string> = {};
  for (const p of list) Object.assign(methods, p.methods);
  let started: Primitive[] = [];
  return {
    primitives: list,
    ...(trajectories === undefined ? {} : { trajectories }),
    agents: list.map((p) => p.agent),
    methods,
    async start(options) {
      for (const p of list) {
        await p.start(options);
        started.push(p);
      }
    },
    async stop() {
      const running = started.reverse();
      started = [];
      for (const p of running) await p.stop();
    },
    attach(given) {
      runtime.set(given);
    },
  };
}
