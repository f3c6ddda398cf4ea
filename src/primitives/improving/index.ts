/**
 * The self-improving primitive (seed 003 §5.2): trajectory library, exemplars, curation,
 * augmentation, difficulty, gossip.
 */
export {
  IMPROVING_PROJECTIONS,
  improvingPrimitive,
  type ImprovingInit,
  type ImprovingPrimitive,
  type TrajectorySource,
} from './improving-primitive.js';
export {
  IMPROVING_EVENTS,
  IMPROVING_PROJECTION_NAME,
  improvingProjection,
  libraryKey,
  trajectoryKey,
  type AugmentedData,
  type CuratedData,
  type ExemplarsServedData,
  type ImprovingState,
  type TrajectoryAddedData,
  type TrajectoryGossipedData,
} from './improving-projection.js';
export {
  AUGMENTATION_MODES,
  SLOW_RATIO,
  augmentTrajectory,
  referenceOf,
  type AugmentationMode,
} from './augment.js';
export {
  CURATION_STRATEGIES,
  DIVERSITY_WEIGHT,
  curationPrunes,
  isExemplarCandidate,
  meanReward,
  selectExemplars,
  utilityScores,
  type CurationPolicy,
  type CurationStrategy,
} from './curation.js';
export {
  TASK_DIFFICULTIES,
  TOO_EASY_ABOVE,
  TOO_HARD_BELOW,
  assessDifficulty,
  difficultyOf,
  type TaskDifficulty,
} from './difficulty.js';
export {
  TRAJECTORIES_PREFIX,
  trajectoryGossip,
  trajectoryTopic,
  type TrajectoryGossip,
  type TrajectoryMeshLink,
  type TrajectoryPublisher,
  type TrajectoryReceipt,
  type TrajectoryReceiver,
} from './gossip.js';
export { MAX_EXEMPLARS, MAX_SAMPLES } from './improving-schemas.js';
export {
  MAX_STEPS,
  MAX_TRAJECTORY_BYTES,
  TASK_TYPE_PATTERN,
  TRAJECTORY_STATES,
  pathSignature,
  redactTrajectory,
  stepSummary,
  trajectoryDigest,
  validateTrajectory,
  type Augmentation,
  type Trajectory,
  type TrajectoryContent,
  type TrajectoryOrigin,
  type TrajectoryState,
} from './trajectory.js';
export {
  trajectoryLibrary,
  type LibraryScope,
  type TrajectoryLibrary,
  type TrajectoryLibraryComponents,
} from './trajectory-library.js';
