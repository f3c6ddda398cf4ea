/**
 * The core records of Plexus (DESIGN §2) with their JSON Schemas (2020-12) and validators:
 * AgentCard, VerbSpec (with effects and projection hints), Job, Event, and the schema of
 * the core Envelope.
 */
export {
  AGENT_CAPABILITY_SCHEMA,
  AGENT_CARD_SCHEMA,
  AGENT_ENDPOINT_SCHEMA,
  AGENT_ORIGINS,
  AGENT_TIERS,
  deserializeAgentCard,
  findCapability,
  parseAgentCard,
  serializeAgentCard,
  validateAgentCard,
} from './agent-card.js';
export type { AgentCapability, AgentCard, AgentEndpoint, AgentOrigin, AgentTier } from './agent-card.js';
export { compareDateTimes, dateTimeToEpochNanos, isDateTime } from './datetime.js';
export {
  EFFECT_NAMES,
  composeEffects,
  isEffectName,
  normalizeEffects,
  normalizeEffectsWithProblems,
} from './effects.js';
export type { EffectName, Effects } from './effects.js';
export { ENVELOPE_SCHEMA, parseEnvelope, validateEnvelope } from './envelope-schema.js';
export {
  EVENT_SCHEMA,
  EVENT_TYPE_PATTERN_SOURCE,
  eventHashBody,
  parseEvent,
  validateEvent,
} from './event.js';
export type { Event } from './event.js';
export {
  ESRP_JOB_STATUSES,
  ESRP_TO_JOB_STATE,
  JOB_ARTIFACT_SCHEMA,
  JOB_SCHEMA,
  JOB_STATES,
  JOB_STATE_TO_ESRP,
  JOB_TIMING_SCHEMA,
  JOB_TRANSITIONS,
  TERMINAL_JOB_STATES,
  assertTransition,
  canTransition,
  isJobState,
  isTerminalJobState,
  parseJob,
  validateJob,
} from './job.js';
export type { EsrpJobStatus, Job, JobArtifact, JobInputRequest, JobState, JobTiming } from './job.js';
export { normalizeProjection, normalizeProjectionWithProblems } from './projection.js';
export {
  ANY_SCHEMA_SCHEMA,
  CID_SCHEMA,
  DATE_SCHEMA,
  DATE_TIME_SCHEMA,
  ERROR_DATA_SCHEMA,
  EXTENSIONS_SCHEMA,
  NON_EMPTY_STRING_SCHEMA,
  SHA256_HEX_SCHEMA,
  SIGNATURE_SCHEMA,
  TRACEPARENT_SCHEMA,
  VERB_NAME_SCHEMA,
  VERB_VERSION_SCHEMA,
} from './schema-parts.js';
export {
  CAPABILITY_SCOPE_PATTERN_SOURCE,
  EFFECTS_SCHEMA,
  ERA_STATUSES,
  PROJECTION_KEY_PATTERN_SOURCE,
  VERB_CATEGORIES,
  VERB_DEPRECATION_SCHEMA,
  VERB_SPEC_SCHEMA,
  parseVerbSpec,
  validateVerbSpec,
} from './verb-spec.js';
export type { EraStatus, ProjectionHints, VerbCategory, VerbDeprecation, VerbSpec } from './verb-spec.js';
