/**
 * Trajectory gossip on the mesh (seed 003 §5.2, §7.3; issue 15 item 6; docs/decisions/mesh.md
 * MESH-29…31): the checks a trajectory message must pass before gossipsub accepts (and
 * forwards) it, beside the envelope checks every topic has (MESH-3), so that a peer sending
 * malformed trajectories is scored down like one sending forged envelopes.
 */
import { toPlexusError } from '../../core/errors.js';
import { isJsonObject, type JsonValue } from '../../core/json.js';
import {
  TRAJECTORIES_PREFIX,
  validateTrajectory,
  type TrajectoryContent,
} from '../../primitives/improving/index.js';

/** True when `topic` is a trajectory topic, `hyperspace/trajectories/{taskType}`. */
export function isTrajectoryTopic(topic: string): boolean {
  return topic.startsWith(TRAJECTORIES_PREFIX);
}

/**
 * What is wrong with the payload `d` of a message on trajectory topic `topic` signed by
 * `signer` (a PeerId), or `undefined` when nothing is: it must be an object whose `taskType` is
 * the topic's, that passes the primitive's trajectory checks (steps, reward, size), and whose
 * `peerId`, when it names one, is the signer's (a node publishes only its own trajectories).
 */
export function trajectoryProblem(topic: string, d: JsonValue, signer: string): string | undefined {
  if (!isJsonObject(d)) return 'the trajectory is not an object';
  const taskType = topic.slice(TRAJECTORIES_PREFIX.length);
  if (d['taskType'] !== taskType) {
    return `taskType ${JSON.stringify(d['taskType'] ?? null)} is not the topic's ${JSON.stringify(taskType)}`;
  }
  if (!('input' in d) || !('output' in d)) return 'the trajectory has no input or no output';
  if (d['peerId'] !== undefined && d['peerId'] !== signer) {
    return `the trajectory names peer ${JSON.stringify(d['peerId'])}, but ${signer} signed it`;
  }
  const content: TrajectoryContent = {
    taskType,
    input: d['input'] ?? null,
    output: d['output'] ?? null,
    steps: d['steps'] as JsonValue[],
    reward: d['reward'] as number,
    ...(d['metadata'] === undefined ? {} : { metadata: d['metadata'] }),
  };
  try {
    validateTrajectory(content);
  } catch (error) {
    return toPlexusError(error).message;
  }
  return undefined;
}
