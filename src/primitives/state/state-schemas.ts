/**
 * JSON Schemas (2020-12) of the state primitive's params and results (seed 003 §4.1). The
 * runtime checks params against them, so a bad field is answered with −32602 naming it.
 */

/** A session id as the primitives accept it. */
export const SESSION_ID = { type: 'string', minLength: 1, maxLength: 200 } as const;

const TEXT = { type: 'string', minLength: 1, maxLength: 256 } as const;
const ISO_TIME = { type: 'string', format: 'date-time' } as const;

/** `state.createSession` params. */
export const CREATE_SESSION_INPUT = {
  type: 'object',
  additionalProperties: false,
  properties: {
    agentName: TEXT,
    agentType: TEXT,
    peerId: TEXT,
    model: TEXT,
    metadata: { type: 'object' },
    budget: { type: 'number', minimum: 0 },
  },
} as const;

/** `state.createSession` result. */
export const CREATE_SESSION_OUTPUT = {
  type: 'object',
  required: ['sessionId', 'createdAt'],
  properties: { sessionId: { type: 'string' }, createdAt: ISO_TIME },
} as const;

/** Params naming only a session. */
export const SESSION_ONLY_INPUT = {
  type: 'object',
  required: ['sessionId'],
  additionalProperties: false,
  properties: { sessionId: SESSION_ID },
} as const;

/** `state.getSession` result (SessionInfo). */
export const SESSION_INFO_OUTPUT = {
  type: 'object',
  required: ['sessionId', 'status', 'createdAt', 'budget', 'keys', 'episodes'],
  properties: {
    sessionId: { type: 'string' },
    status: { enum: ['active', 'ended'] },
    agentName: { type: 'string' },
    agentType: { type: 'string' },
    peerId: { type: 'string' },
    model: { type: 'string' },
    metadata: { type: 'object' },
    createdAt: ISO_TIME,
    endedAt: ISO_TIME,
    duration: { type: 'integer', minimum: 0 },
    budget: { type: 'number', minimum: 0 },
    keys: { type: 'array', items: { type: 'string' } },
    episodes: {
      type: 'array',
      items: {
        type: 'object',
        required: ['episodeId', 'outcome', 'reward', 'recordedAt'],
        properties: {
          episodeId: { type: 'string' },
          outcome: { type: 'string' },
          reward: { type: 'number', minimum: -1, maximum: 1 },
          recordedAt: ISO_TIME,
        },
      },
    },
  },
} as const;

/** `state.setState` params. */
export const SET_STATE_INPUT = {
  type: 'object',
  required: ['sessionId', 'key', 'value'],
  additionalProperties: false,
  properties: { sessionId: SESSION_ID, key: TEXT, value: true },
} as const;

/** `state.setState` result. */
export const SET_STATE_OUTPUT = {
  type: 'object',
  required: ['updated'],
  properties: { updated: { type: 'boolean' } },
} as const;

/** `state.getState` params. */
export const GET_STATE_INPUT = {
  type: 'object',
  required: ['sessionId', 'key'],
  additionalProperties: false,
  properties: { sessionId: SESSION_ID, key: TEXT },
} as const;

/** `state.getState` result: `exists` tells a stored `null` from a missing key. */
export const GET_STATE_OUTPUT = {
  type: 'object',
  required: ['value', 'exists'],
  properties: { value: true, exists: { type: 'boolean' } },
} as const;

/** `state.endSession` result. */
export const END_SESSION_OUTPUT = {
  type: 'object',
  required: ['ended', 'duration'],
  properties: { ended: { type: 'boolean' }, duration: { type: 'integer', minimum: 0 } },
} as const;

/** `state.recordEpisode` params: reward in [−1, 1]. */
export const RECORD_EPISODE_INPUT = {
  type: 'object',
  required: ['sessionId', 'outcome', 'reward'],
  additionalProperties: false,
  properties: {
    sessionId: SESSION_ID,
    outcome: TEXT,
    reward: { type: 'number', minimum: -1, maximum: 1 },
  },
} as const;

/** `state.recordEpisode` result. */
export const RECORD_EPISODE_OUTPUT = {
  type: 'object',
  required: ['episodeId'],
  properties: { episodeId: { type: 'string' } },
} as const;
