/**
 * The self-improving primitive (seed 003 §5.2): an experience library of execution
 * trajectories per tenant and task type, curated for in-context learning and shared over
 * trajectory gossip. Six methods — `recordTrajectory`, `getExemplars`, `curate`, `augment`,
 * `assessDifficulty`, `getLibraryStats` — each a verb of one agent `improving`, all state in
 * the `primitives.improving` projection; plus {@link ImprovingPrimitive.receive} for
 * trajectories arriving from peers.
 *
 * Every trajectory is validated (`TRAJECTORY_REJECTED`, −32008) and PII-redacted before it is
 * stored or published. Writes to one task type's library are serialised by a keyed lock.
 */
import { PlexusError } from '../../core/errors.js';
import { isJsonObject, type JsonValue } from '../../core/json.js';
import type { HandlerContext } from '../../runtime/index.js';
import { projectionView } from '../../store/projection-view.js';
import { keyedLock } from '../keyed-lock.js';
import { definePrimitive, type Primitive, type PrimitiveComponents } from '../primitive.js';
import { augmentTrajectory, referenceOf, type AugmentationMode } from './augment.js';
import {
  curationPrunes,
  exemplarView,
  meanReward,
  selectExemplars,
  utilityScores,
  type CurationPolicy,
  type CurationStrategy,
} from './curation.js';
import { assessDifficulty } from './difficulty.js';
import type { TrajectoryGossip, TrajectoryPublisher, TrajectorySource } from './gossip.js';

export type { TrajectorySource } from './gossip.js';
import {
  IMPROVING_EVENTS,
  improvingProjection,
  libraryKey,
  trajectoryKey,
  type AugmentedData,
  type CuratedData,
  type ExemplarsServedData,
  type ImprovingState,
} from './improving-projection.js';
import * as S from './improving-schemas.js';
import {
  TRAJECTORY_STATES,
  stepSummary,
  type Trajectory,
  type TrajectoryContent,
  type TrajectoryState,
} from './trajectory.js';
import { trajectoryLibrary, type LibraryScope } from './trajectory-library.js';

/** Options of {@link improvingPrimitive}. */
export interface ImprovingInit {
  /** This node's peer id, recorded as the contributor of local trajectories. @default 'local' */
  readonly peerId?: string;
  /** Publishes recorded trajectories; without it nothing is gossiped (`gossipedTo: 0`). */
  readonly publisher?: TrajectoryPublisher;
  /**
   * The seam to the mesh (MESH-29): its publisher is used when `publisher` is not given; the
   * primitive tells it the task types the node follows (those of its shared library at start,
   * then each task type a call names) and takes the trajectories it receives. Only
   * trajectories without a tenant are published (MESH-31).
   */
  readonly gossip?: TrajectoryGossip;
  /** A trajectory with reward at least this is SUCCESS, below it FAILED. @default 0.5 */
  readonly successThreshold?: number;
  /** Most trajectories per tenant and task type; recording beyond evicts the lowest utility. @default 10000 */
  readonly maxLibrarySize?: number;
  /** `EXEMPLAR_LEVEL` curation prunes below this utility. @default 0.4 */
  readonly pruneBelow?: number;
  /** `DATABASE_LEVEL` curation keeps this many trajectories per step path. @default 3 */
  readonly keepPerPath?: number;
}

/** The self-improving primitive, with the entry point for gossiped trajectories. */
export interface ImprovingPrimitive extends Primitive {
  /**
   * Adds a trajectory received from a peer (a message published by another node's
   * `recordTrajectory`) to the local library, validated and redacted again. A trajectory
   * already in the library (same content) is not added twice.
   * @throws PlexusError `TRAJECTORY_REJECTED` when the message fails validation.
   */
  receive(
    message: JsonValue,
    from: TrajectorySource,
  ): Promise<{ readonly trajectoryId: string; readonly state: TrajectoryState; readonly duplicate: boolean }>;
}

/** The projections of the self-improving primitive. */
export const IMPROVING_PROJECTIONS = [improvingProjection] as const;

function checkUnit(field: string, value: number, integer = false): void {
  const ok = integer ? Number.isInteger(value) && value > 0 : value >= 0 && value <= 1;
  if (!ok) {
    throw new PlexusError('INVALID_PARAMS', `improvingPrimitive: ${field} is out of range`, {
      details: { field },
    });
  }
}

/**
 * Creates the self-improving primitive.
 *
 * @throws PlexusError `INVALID_PARAMS` for an option out of range.
 * @example
 * const improving = improvingPrimitive({ log }, { peerId: node.peerId, publisher: mesh });
 */
export function improvingPrimitive(
  components: PrimitiveComponents,
  init: ImprovingInit = {},
): ImprovingPrimitive {
  const { log } = components;
  const now = components.now ?? Date.now;
  const peerId = init.peerId ?? 'local';
  const successThreshold = init.successThreshold ?? 0.5;
  const maxLibrarySize = init.maxLibrarySize ?? 10_000;
  const policy: CurationPolicy = { pruneBelow: init.pruneBelow ?? 0.4, keepPerPath: init.keepPerPath ?? 3 };
  checkUnit('successThreshold', successThreshold);
  checkUnit('pruneBelow', policy.pruneBelow);
  checkUnit('maxLibrarySize', maxLibrarySize, true);
  checkUnit('keepPerPath', policy.keepPerPath, true);
  const view = projectionView<ImprovingState>({ log, projection: improvingProjection });
  const publisher: TrajectoryPublisher | undefined = init.publisher ?? init.gossip?.publisher;
  /** MESH-31: through the mesh seam, only tenant-less trajectories go out, and only when the node shares. */
  const shares = (scope: LibraryScope): boolean =>
    init.publisher !== undefined || (init.gossip?.sharing() === true && scope.tenant === null);
  const lock = keyedLock();

  const scopeOf = (context: HandlerContext): LibraryScope => ({
    tenant: context.envelope.tenantId ?? null,
    context,
  });
  const { library, tenantTrajectories, at, append, store, gossip } = trajectoryLibrary({
    log,
    view,
    lock,
    now,
    successThreshold,
    maxLibrarySize,
    ...(publisher === undefined ? {} : { publisher }),
  });
  /** MESH-30: a task type a call names is followed (its trajectory topic subscribed). */
  const follow = (taskType: string | undefined): void => {
    if (taskType !== undefined) init.gossip?.follow(taskType);
  };

  const recordTrajectory = async (input: JsonValue, context: HandlerContext): Promise<JsonValue> => {
    const params = input as unknown as TrajectoryContent;
    const scope = scopeOf(context);
    follow(params.taskType);
    const { trajectory, duplicate } = await store(scope, params, 'local', peerId);
    const gossipedTo = duplicate || !shares(scope) ? trajectory.gossipedTo : await gossip(scope, trajectory);
    return { trajectoryId: trajectory.trajectoryId, state: trajectory.state, gossipedTo };
  };

  const getExemplars = (input: JsonValue, context: HandlerContext): Promise<JsonValue> => {
    const params = input as {
      taskType: string;
      limit?: number;
      strategy?: CurationStrategy;
      minReward?: number;
    };
    const scope = scopeOf(context);
    follow(params.taskType);
    return lock.run(libraryKey(scope.tenant, params.taskType), async () => {
      const lib = library(scope.tenant, params.taskType);
      const scores = utilityScores(lib);
      const picked = selectExemplars(
        lib,
        scores,
        params.strategy ?? 'HYBRID',
        params.limit ?? 5,
        params.minReward ?? 0,
      );
      if (picked.length > 0) {
        const data: ExemplarsServedData = {
          taskType: params.taskType,
          trajectoryIds: picked.map((t) => t.trajectoryId),
          at: at(),
        };
        await append(scope, IMPROVING_EVENTS.exemplarsServed, data);
      }
      return {
        exemplars: picked.map((t) =>
          exemplarView(t, scores.get(t.trajectoryId) ?? 0, t.usageCount + 1, stepSummary),
        ),
        librarySize: lib.length,
        avgReward: meanReward(lib),
      };
    });
  };

  const curate = (input: JsonValue, context: HandlerContext): Promise<JsonValue> => {
    const params = input as { taskType: string; strategy?: CurationStrategy };
    const strategy = params.strategy ?? 'HYBRID';
    const scope = scopeOf(context);
    return lock.run(libraryKey(scope.tenant, params.taskType), async () => {
      const lib = library(scope.tenant, params.taskType);
      const pruned = curationPrunes(lib, utilityScores(lib), strategy, policy);
      if (pruned.length > 0) {
        const data: CuratedData = { taskType: params.taskType, strategy, pruned, at: at() };
        await append(scope, IMPROVING_EVENTS.curated, data);
      }
      return {
        kept: lib.length - pruned.length,
        pruned: pruned.length,
        librarySize: tenantTrajectories(scope.tenant).length,
      };
    });
  };

  const augment = async (input: JsonValue, context: HandlerContext): Promise<JsonValue> => {
    const params = input as { trajectoryId: string; mode?: AugmentationMode };
    const mode = params.mode ?? 'FULL_PIPELINE';
    const scope = scopeOf(context);
    const found = view.state().trajectories.get(trajectoryKey(scope.tenant, params.trajectoryId));
    if (found === undefined) {
      throw new PlexusError(
        'NOT_FOUND',
        `trajectory ${JSON.stringify(params.trajectoryId)} is not in the library`,
        {
          details: { field: 'trajectoryId', value: params.trajectoryId },
        },
      );
    }
    return lock.run(libraryKey(scope.tenant, found.taskType), async () => {
      const t = view.state().trajectories.get(trajectoryKey(scope.tenant, params.trajectoryId)) ?? found;
      const upgrade =
        t.state === 'AUGMENTED' && t.augmentation?.mode === 'FEEDBACK_ONLY' && mode === 'FULL_PIPELINE';
      const eligible = t.state === 'FAILED' || t.state === 'PENDING' || upgrade;
      if (mode === 'NONE' || !eligible) return { augmented: false, newState: t.state };
      const lib = library(scope.tenant, t.taskType);
      const reference = referenceOf(lib, utilityScores(lib), t.trajectoryId);
      const augmentation = augmentTrajectory(t, reference, mode, at());
      const data: AugmentedData = { trajectoryId: t.trajectoryId, newState: 'AUGMENTED', augmentation };
      await append(scope, IMPROVING_EVENTS.augmented, data);
      return {
        augmented: true,
        newState: 'AUGMENTED',
        feedback: [...augmentation.feedback],
        ...(augmentation.revisedSteps === null ? {} : { revisedSteps: [...augmentation.revisedSteps] }),
      };
    });
  };

  const assess = (input: JsonValue, context: HandlerContext): JsonValue => {
    const params = input as { taskType: string; input: JsonValue; samples?: number };
    follow(params.taskType);
    return assessDifficulty(
      library(scopeOf(context).tenant, params.taskType),
      params.input,
      params.samples ?? 10,
    );
  };

  const getLibraryStats = (input: JsonValue, context: HandlerContext): JsonValue => {
    const params = input as { taskType?: string };
    follow(params.taskType);
    const tenant = scopeOf(context).tenant;
    const list =
      params.taskType === undefined ? tenantTrajectories(tenant) : library(tenant, params.taskType);
    const byState = Object.fromEntries(TRAJECTORY_STATES.map((s) => [s, 0])) as Record<
      TrajectoryState,
      number
    >;
    const peers = new Map<string, Trajectory[]>();
    for (const t of list) {
      byState[t.state] += 1;
      peers.set(t.peerId, [...(peers.get(t.peerId) ?? []), t]);
    }
    const topContributors = [...peers]
      .map(([peer, ts]) => ({ peerId: peer, count: ts.length, avgReward: meanReward(ts) }))
      .sort((a, b) => b.count - a.count || b.avgReward - a.avgReward || (a.peerId < b.peerId ? -1 : 1))
      .slice(0, 5);
    return { total: list.length, byState, avgReward: meanReward(list), topContributors };
  };

  const primitive = definePrimitive({
    name: 'improving',
    title: 'Hyperspace self-improving (trajectory library)',
    views: [view],
    methods: [
      {
        method: 'recordTrajectory',
        description: 'Records an execution trajectory (validated, PII-redacted) and gossips it to peers.',
        input: S.RECORD_INPUT,
        output: S.RECORD_OUTPUT,
        category: 'mutation',
        effects: { writes: ['improving/trajectories'] },
        handler: recordTrajectory,
      },
      {
        method: 'getExemplars',
        description:
          'Curated trajectories for in-context learning, by utility, diversity and minimum reward.',
        input: S.GET_EXEMPLARS_INPUT,
        output: S.GET_EXEMPLARS_OUTPUT,
        category: 'mutation',
        effects: { reads: ['improving/trajectories'], writes: ['improving/trajectories'] },
        handler: getExemplars,
      },
      {
        method: 'curate',
        description: 'Prunes a task type library with a curation strategy.',
        input: S.CURATE_INPUT,
        output: S.CURATE_OUTPUT,
        category: 'mutation',
        effects: { reads: ['improving/trajectories'], deletes: ['improving/trajectories'] },
        handler: curate,
      },
      {
        method: 'augment',
        description: 'Augments a failed trajectory with feedback, a revised path and a lesson.',
        input: S.AUGMENT_INPUT,
        output: S.AUGMENT_OUTPUT,
        category: 'mutation',
        effects: { reads: ['improving/trajectories'], writes: ['improving/trajectories'] },
        handler: augment,
      },
      {
        method: 'assessDifficulty',
        description: 'Task difficulty from the pass rate of similar recorded attempts.',
        input: S.ASSESS_INPUT,
        output: S.ASSESS_OUTPUT,
        category: 'query',
        effects: { reads: ['improving/trajectories'] },
        handler: assess,
      },
      {
        method: 'getLibraryStats',
        description: 'Library size, counts by state, mean reward and top contributors.',
        input: S.STATS_INPUT,
        output: S.STATS_OUTPUT,
        category: 'query',
        effects: { reads: ['improving/trajectories'] },
        handler: getLibraryStats,
      },
    ],
  });

  const improving: ImprovingPrimitive = {
    ...primitive,
    async start(options) {
      await primitive.start(options);
      // MESH-30: the task types of the shared (tenant-less) library are followed from the start
      for (const t of tenantTrajectories(null)) follow(t.taskType);
    },
    async receive(message, from) {
      if (!isJsonObject(message)) {
        throw new PlexusError(
          'TRAJECTORY_REJECTED',
          'trajectory rejected: the gossip message is not an object',
          {
            details: { problems: [{ pointer: '/', message: 'must be an object' }] },
          },
        );
      }
      const missing = ['input', 'output'].filter((k) => !(k in message));
      if (missing.length > 0) {
        throw new PlexusError('TRAJECTORY_REJECTED', `trajectory rejected: /${missing[0] ?? ''} is missing`, {
          details: { problems: missing.map((k) => ({ pointer: `/${k}`, message: 'is required' })) },
        });
      }
      const content: TrajectoryContent = {
        taskType: message['taskType'] as string,
        input: message['input'] ?? null,
        output: message['output'] ?? null,
        steps: message['steps'] as JsonValue[],
        reward: message['reward'] as number,
        ...(message['metadata'] === undefined ? {} : { metadata: message['metadata'] }),
      };
      const wanted = typeof message['trajectoryId'] === 'string' ? message['trajectoryId'] : undefined;
      const { trajectory, duplicate } = await store(
        { tenant: from.tenant ?? null },
        content,
        'gossip',
        from.peerId,
        wanted,
      );
      return { trajectoryId: trajectory.trajectoryId, state: trajectory.state, duplicate };
    },
  };
  init.gossip?.receiveWith((message, from) => improving.receive(message, from));
  return improving;
}
