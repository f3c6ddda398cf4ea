/**
 * JSON Schemas (2020-12) of the self-improving methods' params and results (seed 003 §5.2).
 * Types are checked here (−32602 naming the field); what makes a trajectory acceptable
 * (steps with actions, reward in [0, 1], size) is checked by `validateTrajectory` (−32008).
 */
import type { JsonSchema } from '../../core/schema-validator.js';
import { AUGMENTATION_MODES } from './augment.js';
import { CURATION_STRATEGIES } from './curation.js';
import { TASK_DIFFICULTIES } from './difficulty.js';
import { TASK_TYPE_PATTERN, TRAJECTORY_STATES } from './trajectory.js';

/** Most exemplars one call returns. */
export const MAX_EXEMPLARS = 50;
/** Most samples `assessDifficulty` considers. */
export const MAX_SAMPLES = 1000;

const TASK_TYPE: JsonSchema = { type: 'string', pattern: TASK_TYPE_PATTERN };
const TRAJECTORY_ID: JsonSchema = { type: 'string', minLength: 1, maxLength: 64 };
const COUNT: JsonSchema = { type: 'integer', minimum: 0 };
const UNIT: JsonSchema = { type: 'number', minimum: 0, maximum: 1 };
const STATE: JsonSchema = { type: 'string', enum: [...TRAJECTORY_STATES] };

/** Params of `improving.recordTrajectory`. */
export const RECORD_INPUT: JsonSchema = {
  type: 'object',
  required: ['taskType', 'input', 'output', 'steps', 'reward'],
  additionalProperties: false,
  properties: {
    taskType: TASK_TYPE,
    input: true,
    output: true,
    steps: { type: 'array', items: { type: 'object' } },
    reward: { type: 'number' },
    metadata: { type: 'object' },
  },
};

/** Result of `improving.recordTrajectory`. */
export const RECORD_OUTPUT: JsonSchema = {
  type: 'object',
  required: ['trajectoryId', 'state', 'gossipedTo'],
  properties: { trajectoryId: TRAJECTORY_ID, state: STATE, gossipedTo: COUNT },
};

/** Params of `improving.getExemplars`. */
export const GET_EXEMPLARS_INPUT: JsonSchema = {
  type: 'object',
  required: ['taskType'],
  additionalProperties: false,
  properties: {
    taskType: TASK_TYPE,
    limit: { type: 'integer', minimum: 1, maximum: MAX_EXEMPLARS },
    strategy: { type: 'string', enum: [...CURATION_STRATEGIES] },
    minReward: UNIT,
  },
};

const EXEMPLAR: JsonSchema = {
  type: 'object',
  required: ['trajectoryId', 'input', 'output', 'steps', 'reward', 'utilityScore', 'usageCount', 'peerId'],
  properties: {
    trajectoryId: TRAJECTORY_ID,
    input: true,
    output: true,
    steps: {
      type: 'array',
      items: {
        type: 'object',
        required: ['action'],
        properties: { action: { type: 'string' }, tool: { type: 'string' }, duration: { type: 'number' } },
      },
    },
    reward: UNIT,
    utilityScore: UNIT,
    usageCount: COUNT,
    peerId: { type: 'string' },
    state: STATE,
    feedback: { type: 'array', items: { type: 'string' } },
  },
};

/** Result of `improving.getExemplars`. */
export const GET_EXEMPLARS_OUTPUT: JsonSchema = {
  type: 'object',
  required: ['exemplars', 'librarySize', 'avgReward'],
  properties: { exemplars: { type: 'array', items: EXEMPLAR }, librarySize: COUNT, avgReward: UNIT },
};

/** Params of `improving.curate`. */
export const CURATE_INPUT: JsonSchema = {
  type: 'object',
  required: ['taskType'],
  additionalProperties: false,
  properties: { taskType: TASK_TYPE, strategy: { type: 'string', enum: [...CURATION_STRATEGIES] } },
};

/** Result of `improving.curate`. */
export const CURATE_OUTPUT: JsonSchema = {
  type: 'object',
  required: ['kept', 'pruned', 'librarySize'],
  properties: { kept: COUNT, pruned: COUNT, librarySize: COUNT },
};

/** Params of `improving.augment`. */
export const AUGMENT_INPUT: JsonSchema = {
  type: 'object',
  required: ['trajectoryId'],
  additionalProperties: false,
  properties: { trajectoryId: TRAJECTORY_ID, mode: { type: 'string', enum: [...AUGMENTATION_MODES] } },
};

/** Result of `improving.augment`. */
export const AUGMENT_OUTPUT: JsonSchema = {
  type: 'object',
  required: ['augmented', 'newState'],
  properties: {
    augmented: { type: 'boolean' },
    newState: STATE,
    feedback: { type: 'array', items: { type: 'string' } },
    revisedSteps: { type: 'array', items: { type: 'object' } },
  },
};

/** Params of `improving.assessDifficulty`. */
export const ASSESS_INPUT: JsonSchema = {
  type: 'object',
  required: ['taskType', 'input'],
  additionalProperties: false,
  properties: {
    taskType: TASK_TYPE,
    input: true,
    samples: { type: 'integer', minimum: 1, maximum: MAX_SAMPLES },
  },
};

/** Result of `improving.assessDifficulty`. */
export const ASSESS_OUTPUT: JsonSchema = {
  type: 'object',
  required: ['difficulty', 'passRate', 'recommendation'],
  properties: {
    difficulty: { type: 'string', enum: [...TASK_DIFFICULTIES] },
    passRate: UNIT,
    recommendation: { type: 'string' },
    sampleSize: COUNT,
  },
};

/** Params of `improving.getLibraryStats`. */
export const STATS_INPUT: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  properties: { taskType: TASK_TYPE },
};

/** Result of `improving.getLibraryStats`. */
export const STATS_OUTPUT: JsonSchema = {
  type: 'object',
  required: ['total', 'byState', 'avgReward', 'topContributors'],
  properties: {
    total: COUNT,
    byState: {
      type: 'object',
      required: [...TRAJECTORY_STATES],
      properties: { PENDING: COUNT, SUCCESS: COUNT, FAILED: COUNT, AUGMENTED: COUNT },
    },
    avgReward: UNIT,
    topContributors: {
      type: 'array',
      items: {
        type: 'object',
        required: ['peerId', 'count', 'avgReward'],
        properties: { peerId: { type: 'string' }, count: COUNT, avgReward: UNIT },
      },
    },
  },
};
