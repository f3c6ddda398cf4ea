/** Canonical JSON, both profiles of DESIGN D1: `jcs` (RFC 8785) and `esrp` (ESRP v1 reference rules). */
export { canonicalizeJcs, hasLoneSurrogate } from './jcs.js';
export {
  canonicalizeEsrp,
  canonicalizeEsrpText,
  compareUtf8,
  nonIntegerReason,
  type EsrpJsonObject,
  type EsrpJsonValue,
} from './esrp.js';
export { parseJsonLossless } from './lossless.js';
export { canonicalize, CANONICAL_PROFILES, type CanonicalProfile } from './profile.js';
