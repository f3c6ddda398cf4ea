/**
 * Trajectory gossip (seed 003 §5.2, §7.3): a recorded trajectory is published on
 * `hyperspace/trajectories/{taskType}` (D13) to subscribed peers. The primitive only needs
 * "publish and tell me how many peers it reached"; the mesh transport provides it.
 */
import type { JsonObject } from '../../core/json.js';

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
  return `hyperspace/trajectories/${taskType}`;
}
