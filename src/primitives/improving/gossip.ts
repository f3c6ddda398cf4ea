/**
 * Trajectory gossip (seed 003 §5.2, §7.3): a recorded trajectory is published on
 * `hyperspace/trajectories/{taskType}` (D13) to subscribed peers. The primitive only needs
 * "publish and tell me how many peers it reached"; the mesh transport provides it.
 *
 * {@link trajectoryGossip} is the seam between the primitive and the mesh (docs/decisions/mesh.md
 * MESH-29…31): the primitive is created before any face, so the mesh face attaches its link
 * later (and may detach and attach again); the primitive tells the seam which task types the
 * node follows, and the mesh subscribes to their topics.
 */
import { PlexusError } from '../../core/errors.js';
import type { JsonObject, JsonValue } from '../../core/json.js';
import type { TrajectoryState } from './trajectory.js';

/** Publishes messages on gossip topics. */
export interface TrajectoryPublisher {
  /**
   * Publishes `message` on `topic`.
   * @returns how many peers the message was sent to.
   * @throws anything: a failed publish is recorded and the trajectory stays local.
   */
  publish(topic: string, message: JsonObject, options?: { readonly signal?: AbortSignal }): Promise<number>;
}

/** The gossip topic of a task type's trajectories. */
export function trajectoryTopic(taskType: string): string {
  return `${TRAJECTORIES_PREFIX}${taskType}`;
}

/** The prefix of trajectory topics. */
export const TRAJECTORIES_PREFIX = 'hyperspace/trajectories/';

/** Where a gossiped trajectory came from. */
export interface TrajectorySource {
  /** The verified sender's peer id (the contributor). */
  readonly peerId: string;
  /** The tenant whose library receives it. @default none */
  readonly tenant?: string;
}

/** What adding a received trajectory answered. */
export interface TrajectoryReceipt {
  readonly trajectoryId: string;
  readonly state: TrajectoryState;
  readonly duplicate: boolean;
}

/** Takes trajectories received from peers (the improving primitive's `receive`). */
export type TrajectoryReceiver = (message: JsonValue, from: TrajectorySource) => Promise<TrajectoryReceipt>;

/** What the mesh hands the seam while it runs. */
export interface TrajectoryMeshLink {
  /** Subscribes to the trajectory topic of `taskType`. Never throws. */
  follow(taskType: string): void;
  /** Publishes a trajectory; absent when the node does not share its trajectories (opt-in). */
  readonly publisher?: TrajectoryPublisher;
}

/** The seam between the improving primitive and the mesh. */
export interface TrajectoryGossip {
  /** The primitive's publisher: the attached link's, else nothing is sent (`0`). */
  readonly publisher: TrajectoryPublisher;
  /** True while an attached link publishes (the node shares its trajectories). */
  sharing(): boolean;
  /** Marks `taskType` followed; the attached link (and any attached later) subscribes to it. */
  follow(taskType: string): void;
  /** The followed task types, sorted. */
  followed(): readonly string[];
  /** Attaches the mesh's link (it is told every followed task type); returns the detach. */
  attach(link: TrajectoryMeshLink): () => void;
  /** Sets who takes received trajectories (the primitive). */
  receiveWith(receiver: TrajectoryReceiver): void;
  /**
   * Adds a trajectory a peer gossiped.
   * @throws PlexusError `TRAJECTORY_REJECTED` for a bad one; `UNAVAILABLE` before a receiver is set.
   */
  receive: TrajectoryReceiver;
}

/** Creates the seam. */
export function trajectoryGossip(): TrajectoryGossip {
  const followed = new Set<string>();
  let link: TrajectoryMeshLink | undefined;
  let receiver: TrajectoryReceiver | undefined;
  return {
    publisher: {
      publish: async (topic, message, options) =>
        link?.publisher === undefined ? 0 : link.publisher.publish(topic, message, options),
    },
    sharing: () => link?.publisher !== undefined,
    follow(taskType) {
      if (followed.has(taskType)) return;
      followed.add(taskType);
      link?.follow(taskType);
    },
    followed: () => [...followed].sort(),
    attach(given) {
      link = given;
      for (const taskType of followed) given.follow(taskType);
      return () => {
        if (link === given) link = undefined;
      };
    },
    receiveWith(given) {
      receiver = given;
    },
    async receive(message, from) {
      if (receiver === undefined) {
        throw new PlexusError('UNAVAILABLE', 'the improving primitive is not running');
      }
      return receiver(message, from);
    },
  };
}
