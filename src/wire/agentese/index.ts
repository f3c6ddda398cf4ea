/**
 * The AGENTESE v2 face (seed 002 §2, DESIGN D6): the invocation envelope, its validation,
 * the codec to and from the core Envelope, and W3C `traceparent` helpers.
 */
export {
  agenteseCodec,
  createAgenteseCodec,
  decodeAgentese,
  encodeAgentese,
  normalizeAgentese,
} from './codec.js';
export {
  AGENTESE_CAPABILITY_SCHEMA,
  AGENTESE_ENVELOPE_SCHEMA,
  AGENTESE_EXTENSIONS,
  AGENTESE_EXTENSION_PREFIX,
  CARRIED_CORE_FIELDS,
  PLEXUS_CARRY_PREFIX,
} from './envelope.js';
export type { AgenteseCapability, AgenteseEnvelope, CarriedCoreField } from './envelope.js';
export {
  DEFAULT_TRACE_FLAGS,
  formatTraceparent,
  isW3cSpanId,
  isW3cTraceId,
  parseTraceparent,
} from './traceparent.js';
export type { TraceparentParts } from './traceparent.js';
export { validateAgentese } from './validate.js';
