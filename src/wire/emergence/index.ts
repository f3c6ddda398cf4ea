/**
 * The Emergence face's codec (seed 000, DESIGN D4).
 */
export { createEmergenceCodec, decodeEmergence, emergenceCodec, encodeEmergence } from './codec.js';
export type { EmergenceCodecInit } from './codec.js';
export { emergenceErrorToPlexus } from './error.js';
export { EMERGENCE_ERRORS, plexusCodeFromEmergence } from './error-table.js';
export {
  EMERGENCE_EXTENSION_PREFIX,
  EMERGENCE_KEYS,
  EMERGENCE_VERB_KINDS,
  EMERGENCE_VERB_PATTERN,
  PLEXUS_ERROR_EXTENSION,
  UUID_V4_PATTERN,
  emergenceKindOfVerb,
  isEmergenceCoreVerb,
} from './message.js';
export type {
  EmergenceCoreVerb,
  EmergenceDoneData,
  EmergenceErrorData,
  EmergenceKey,
  EmergenceMessage,
} from './message.js';
export { emergenceDone, emergenceErrorReply, emergenceReply } from './reply.js';
export type { EmergenceReplyInit } from './reply.js';
export { validateEmergence } from './validate.js';
