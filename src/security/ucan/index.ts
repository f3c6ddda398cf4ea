/**
 * UCAN 0.10 capability tokens (DESIGN D7): encode / decode, AGENTESE mapping, delegation with
 * attenuation checks, chain verification with a cache, proof containers and revocations.
 */
export {
  AGENTESE_SCHEME,
  EFFECT_NAMESPACE,
  KNOWN_CAVEATS,
  abilityCovers,
  capabilityEntries,
  caveatNarrows,
  caveatProblem,
  caveatsCovered,
  effectAbility,
  resourceCovers,
  resourceUri,
  scopeAbility,
  verbResource,
  type CapabilityEntry,
  type CaveatContext,
  type Requirement,
} from './capability.js';
export {
  MAX_CONTAINER_LENGTH,
  encodeCapabilityCollection,
  encodeCapabilityContainer,
  leafOf,
  parseCapabilityContainer,
  proofStore,
  type CapabilityContainer,
  type ProofResolver,
  type ProofStore,
} from './chain-container.js';
export {
  DEFAULT_CHAIN_CACHE_SIZE,
  DEFAULT_MAX_CHAIN_DEPTH,
  DEFAULT_UCAN_CLOCK_TOLERANCE_SEC,
  ucanVerifier,
  type ChainLink,
  type RevocationCheck,
  type UcanVerifier,
  type UcanVerifierInit,
  type UcanVerifierStats,
  type VerifiedChain,
} from './chain-verifier.js';
export {
  capabilitiesOf,
  delegateUcan,
  type Delegation,
  type DelegateUcanInit,
  type GrantInit,
} from './delegate.js';
export { assertCovers, unionRequirements, verbRequirements } from './requirements.js';
export { createRevocation, verifyRevocation, type UcanRevocation } from './revocation.js';
export { UCAN_FAILURE_REASONS, ucanError, ucanFailureReason, type UcanFailureReason } from './ucan-error.js';
export {
  MAX_UCAN_LENGTH,
  UCAN_ALGORITHM,
  UCAN_VERSION,
  checkUcanPayload,
  decodeUcan,
  signUcan,
  ucanCid,
  verifyUcanSignature,
  type AbilityMap,
  type Capabilities,
  type Caveat,
  type SignUcanInit,
  type Ucan,
  type UcanPayload,
} from './ucan-token.js';
