/**
 * The experience library behind the self-improving primitive: reads of a tenant's task-type
 * libraries from the projection, and the writes that every entry point shares — validate,
 * redact, de-duplicate, evict beyond the cap, append (`improving.trajectory_recorded` /
 * `_received`), and publish on trajectory gossip (`improving.trajectory_gossiped`).
 */
import { randomBytes } from 'node:crypto';
import { toPlexusError } from '../../core/errors.js';
import type { JsonObject } from '../../core/json.js';
import type { HandlerContext } from '../../runtime/index.js';
import type { EventInput, EventLog } from '../../store/event-log.js';
import type { EventMap, EventType } from '../../store/event-map.js';
import type { ProjectionView } from '../../store/projection-view.js';
import type { KeyedLock } from '../keyed-lock.js';
import { utilityScores } from './curation.js';
import { trajectoryTopic, type TrajectoryPublisher } from './gossip.js';
import {
  IMPROVING_EVENTS,
  libraryKey,
  trajectoryKey,
  type ImprovingState,
  type TrajectoryAddedData,
  type TrajectoryGossipedData,
} from './improving-projection.js';
import {
  redactTrajectory,
  trajectoryDigest,
  validateTrajectory,
  type Trajectory,
  type TrajectoryContent,
  type TrajectoryOrigin,
} from './trajectory.js';

/** Who a write is for: the tenant, and the handler context when a call made it. */
export interface LibraryScope {
  readonly tenant: string | null;
  readonly context?: HandlerContext;
}

/** What {@link trajectoryLibrary} needs. */
export interface TrajectoryLibraryComponents {
  readonly log: EventLog;
  readonly view: ProjectionView<ImprovingState>;
  /** The per task-type lock shared with the primitive's other writers. */
  readonly lock: KeyedLock;
  readonly now: () => number;
  readonly publisher?: TrajectoryPublisher;
  /** Reward at or above which a trajectory is SUCCESS. */
  readonly successThreshold: number;
  /** Most trajectories per tenant and task type. */
  readonly maxLibrarySize: number;
}

/** Reads and shared writes of the library. */
export interface TrajectoryLibrary {
  /** A tenant's trajectories of one task type, oldest first. */
  readonly library: (tenant: string | null, taskType: string) => Trajectory[];
  /** All of a tenant's trajectories. */
  readonly tenantTrajectories: (tenant: string | null) => Trajectory[];
  /** The current time, RFC 3339. */
  readonly at: () => string;
  /** Appends one event and waits until the view has applied it. */
  readonly append: <K extends EventType>(scope: LibraryScope, type: K, data: EventMap[K]) => Promise<void>;
  /**
   * Validates, redacts, de-duplicates and stores one trajectory (under the task type's lock).
   * @throws PlexusError `TRAJECTORY_REJECTED` from validation.
   */
  readonly store: (
    scope: LibraryScope,
    content: TrajectoryContent,
    origin: TrajectoryOrigin,
    contributor: string,
    wantedId?: string,
  ) => Promise<{ trajectory: Trajectory; duplicate: boolean }>;
  /** Publishes a stored trajectory (unless no publisher or `metadata.share: false`); never throws for the mesh. */
  readonly gossip: (scope: LibraryScope, t: Trajectory) => Promise<number>;
}

const TRAJECTORY_ID = /^traj-[0-9a-f]{8}$/;

/** Creates the library access of one primitive instance. */
export function trajectoryLibrary(c: TrajectoryLibraryComponents): TrajectoryLibrary {
  const { log, view, lock, successThreshold, maxLibrarySize } = c;
  const reserved = new Set<string>();
  const at = (): string => new Date(c.now()).toISOString();
  const library = (tenant: string | null, taskType: string): Trajectory[] => {
    const ids = view.state().libraries.get(libraryKey(tenant, taskType));
    if (ids === undefined) return [];
    const out: Trajectory[] = [];
    for (const id of ids) {
      const t = view.state().trajectories.get(trajectoryKey(tenant, id));
      if (t !== undefined) out.push(t);
    }
    return out;
  };
  const tenantTrajectories = (tenant: string | null): Trajectory[] =>
    [...view.state().trajectories.values()].filter((t) => t.tenant === tenant);

  const append = async <K extends EventType>(
    scope: LibraryScope,
    type: K,
    data: EventMap[K],
  ): Promise<void> => {
    const envelope = scope.context?.envelope;
    const input: EventInput<EventMap, K> = {
      type,
      data,
      ...(envelope === undefined ? {} : { causation: envelope.id }),
      ...(scope.tenant === null ? {} : { tenant: scope.tenant }),
      ...(envelope?.traceparent === undefined ? {} : { trace: envelope.traceparent }),
    };
    const event = await log.append(input);
    await view.waitFor(event.seq);
  };

  const newId = (tenant: string | null, wanted?: string): string => {
    const free = (id: string): boolean =>
      !reserved.has(trajectoryKey(tenant, id)) && !view.state().trajectories.has(trajectoryKey(tenant, id));
    let id = wanted !== undefined && TRAJECTORY_ID.test(wanted) && free(wanted) ? wanted : undefined;
    while (id === undefined) {
      const candidate = `traj-${randomBytes(4).toString('hex')}`;
      if (free(candidate)) id = candidate;
    }
    reserved.add(trajectoryKey(tenant, id));
    return id;
  };

  /** Validates, redacts, de-duplicates and stores one trajectory. */
  const store = (
    scope: LibraryScope,
    content: TrajectoryContent,
    origin: TrajectoryOrigin,
    contributor: string,
    wantedId?: string,
  ): Promise<{ trajectory: Trajectory; duplicate: boolean }> => {
    validateTrajectory(content);
    const redacted = redactTrajectory(content);
    const digest = trajectoryDigest({ taskType: content.taskType, ...redacted, reward: content.reward });
    return lock.run(libraryKey(scope.tenant, content.taskType), async () => {
      const lib = library(scope.tenant, content.taskType);
      const existing = lib.find((t) => t.digest === digest);
      if (existing !== undefined) return { trajectory: existing, duplicate: true };
      let evicted: string[] = [];
      if (lib.length >= maxLibrarySize) {
        const scores = utilityScores(lib);
        evicted = lib
          .map((t, i) => ({ id: t.trajectoryId, score: scores.get(t.trajectoryId) ?? 0, i }))
          .sort((a, b) => a.score - b.score || a.i - b.i)
          .slice(0, lib.length - maxLibrarySize + 1)
          .map((e) => e.id);
      }
      const trajectoryId = newId(scope.tenant, wantedId);
      try {
        const trajectory: Trajectory = {
          trajectoryId,
          tenant: scope.tenant,
          taskType: content.taskType,
          input: redacted.input,
          output: redacted.output,
          steps: redacted.steps,
          reward: content.reward,
          metadata: redacted.metadata,
          state: content.reward >= successThreshold ? 'SUCCESS' : 'FAILED',
          peerId: contributor,
          origin,
          digest,
          recordedAt: at(),
          usageCount: 0,
          gossipedTo: 0,
          augmentation: null,
        };
        const data: TrajectoryAddedData = { trajectory, evicted };
        const type =
          origin === 'local' ? IMPROVING_EVENTS.trajectoryRecorded : IMPROVING_EVENTS.trajectoryReceived;
        await append(scope, type, data);
        return { trajectory, duplicate: false };
      } finally {
        reserved.delete(trajectoryKey(scope.tenant, trajectoryId));
      }
    });
  };

  const gossip = async (scope: LibraryScope, t: Trajectory): Promise<number> => {
    if (c.publisher === undefined || t.metadata?.['share'] === false) return 0;
    const topic = trajectoryTopic(t.taskType);
    const message: JsonObject = {
      trajectoryId: t.trajectoryId,
      taskType: t.taskType,
      input: t.input,
      output: t.output,
      steps: [...t.steps],
      reward: t.reward,
      metadata: t.metadata,
      peerId: t.peerId,
      recordedAt: t.recordedAt,
    };
    let gossipedTo = 0;
    let error: string | null = null;
    try {
      const reached = await c.publisher.publish(topic, message, {
        signal: scope.context?.signal ?? new AbortController().signal,
      });
      gossipedTo = Number.isInteger(reached) && reached > 0 ? reached : 0;
    } catch (cause) {
      error = toPlexusError(cause).message;
    }
    const data: TrajectoryGossipedData = { trajectoryId: t.trajectoryId, topic, gossipedTo, error, at: at() };
    await append(scope, IMPROVING_EVENTS.trajectoryGossiped, data);
    return gossipedTo;
  };

  return { library, tenantTrajectories, at, append, store, gossip };
}
