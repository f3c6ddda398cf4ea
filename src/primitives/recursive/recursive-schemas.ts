/**
 * JSON Schemas (2020-12) of the recursive primitive's params and results (seed 003 §4.5).
 */
import { SESSION_ID } from '../state/state-schemas.js';

const STEP = { type: 'string', minLength: 1, maxLength: 256 } as const;

/** Longest call stack `analyze` accepts. */
export const MAX_CALL_STACK = 10_000;

/** `recursive.analyze` params. */
export const ANALYZE_INPUT = {
  type: 'object',
  required: ['sessionId', 'currentStep', 'callStack'],
  additionalProperties: false,
  properties: {
    sessionId: SESSION_ID,
    currentStep: STEP,
    callStack: { type: 'array', maxItems: MAX_CALL_STACK, items: STEP },
    maxIterations: { type: 'integer', minimum: 1, maximum: 1_000_000 },
  },
} as const;

/** `recursive.analyze` result: `pattern` and `cycle` only when looping. */
export const ANALYZE_OUTPUT = {
  type: 'object',
  required: ['isLooping', 'iterations', 'depth', 'recommendation', 'reason'],
  properties: {
    isLooping: { type: 'boolean' },
    pattern: { type: 'string' },
    cycle: { type: 'array', items: { type: 'string' } },
    iterations: { type: 'integer', minimum: 0 },
    depth: { type: 'integer', minimum: 0 },
    recommendation: { enum: ['continue', 'warn', 'halt'] },
    reason: { type: 'string' },
  },
} as const;

/** `recursive.track` params. */
export const TRACK_INPUT = {
  type: 'object',
  required: ['sessionId', 'step', 'depth'],
  additionalProperties: false,
  properties: {
    sessionId: SESSION_ID,
    step: STEP,
    depth: { type: 'integer', minimum: 0, maximum: 1_000_000 },
  },
} as const;

/** `recursive.track` result. */
export const TRACK_OUTPUT = {
  type: 'object',
  required: ['tracked', 'depth'],
  properties: { tracked: { type: 'boolean' }, depth: { type: 'integer', minimum: 0 } },
} as const;

/** `recursive.getTrace` params. */
export const GET_TRACE_INPUT = {
  type: 'object',
  required: ['sessionId'],
  additionalProperties: false,
  properties: { sessionId: SESSION_ID },
} as const;

/** `recursive.getTrace` result. */
export const GET_TRACE_OUTPUT = {
  type: 'object',
  required: ['steps', 'maxDepth', 'totalIterations', 'deepest'],
  properties: {
    steps: {
      type: 'array',
      items: {
        type: 'object',
        required: ['step', 'depth', 'at'],
        properties: {
          step: { type: 'string' },
          depth: { type: 'integer' },
          at: { type: 'string', format: 'date-time' },
        },
      },
    },
    maxDepth: { type: 'integer', minimum: 1 },
    totalIterations: { type: 'integer', minimum: 0 },
    deepest: { type: 'integer', minimum: 0 },
    lastViolation: { type: 'object' },
  },
} as const;

/** `recursive.setMaxDepth` params. */
export const SET_MAX_DEPTH_INPUT = {
  type: 'object',
  required: ['sessionId', 'maxDepth'],
  additionalProperties: false,
  properties: { sessionId: SESSION_ID, maxDepth: { type: 'integer', minimum: 1, maximum: 1_000_000 } },
} as const;

/** `recursive.setMaxDepth` result. */
export const SET_MAX_DEPTH_OUTPUT = {
  type: 'object',
  required: ['updated'],
  properties: { updated: { type: 'boolean' } },
} as const;
