/**
 * The Hyperspace state primitive (seed 003 §4.1): sessions, per-session key/value state,
 * episodes, and the session directory the guard and recursive primitives read.
 */
export {
  STATE_PROJECTIONS,
  requireActive,
  sessionDirectory,
  sessionInfo,
  statePrimitive,
  type SessionDirectory,
  type StateInit,
  type StatePrimitive,
} from './state-primitive.js';
export {
  STATE_EVENTS,
  STATE_SESSIONS_PROJECTION_NAME,
  sessionsProjection,
  type EpisodeRecord,
  type EpisodeRecordedData,
  type SessionCreatedData,
  type SessionEndedData,
  type SessionRecord,
  type SessionsState,
  type StateSetData,
} from './state-projection.js';
export { SESSION_ID } from './state-schemas.js';
