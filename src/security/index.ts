/**
 * The security layer: Ed25519 keys, did:key and PeerId identities, key files, signed
 * envelopes with domain separation, and the replay cache (DESIGN D2, D3).
 */
export { base64UrlLength, base64UrlProblem, fromBase64Url, toBase64Url } from './base64url.js';
export { DID_KEY_PREFIX, didKeyFromPublicKey, isDidKey, publicKeyFromDidKey } from './did-key.js';
export {
  ED25519_PUBLIC_KEY_LENGTH,
  ED25519_SECRET_KEY_LENGTH,
  ED25519_SIGNATURE_LENGTH,
  generateKeyPair,
  keyPairFromSeed,
  publicKeyFromRaw,
  rawPublicKey,
  sign,
  verify,
} from './ed25519.js';
export type { Ed25519KeyPair } from './ed25519.js';
export { attachSignature, signatureBlock, signedEnvelopeOf } from './envelope-signature.js';
export { DEFAULT_WINDOW_MS, envelopeVerifier } from './envelope-verifier.js';
export type { EnvelopeVerifier, EnvelopeVerifierInit, VerifiedEnvelope } from './envelope-verifier.js';
export {
  identityFromBase64Url,
  identityFromName,
  identityFromPublicKey,
  identityName,
  publicKeyFromIdentity,
} from './identity.js';
export type { IdentityForm, KeyIdentity } from './identity.js';
export {
  KEY_FILE_FORMAT,
  KEY_FILE_MODE,
  KEY_FILE_VERSION,
  encodeKeyFile,
  parseKeyFile,
  readKeyFile,
  writeKeyFile,
} from './key-file.js';
export type { KeyFileContents, KeyFileRead, ReadKeyFileInit, WriteKeyFileInit } from './key-file.js';
export { LruCache } from './lru-cache.js';
export { isPeerId, peerIdFromPublicKey, publicKeyFromPeerId } from './peer-id.js';
export { replayCache, replayKey } from './replay-cache.js';
export type { ReplayCache, ReplayCacheInit, ReplayStatus } from './replay-cache.js';
export {
  MAX_FROM_LENGTH,
  NONCE_LENGTH,
  SIGNED_ENVELOPE_VERSION,
  assertSignedEnvelopeShape,
  signEnvelope,
} from './signed-envelope.js';
export type { SignEnvelopeInit, SignedEnvelope } from './signed-envelope.js';
export {
  MAX_DOMAIN_BYTES,
  RPC_DOMAIN_PREFIX,
  payloadDigest,
  rpcDomain,
  signingBytes,
  signingDigest,
} from './signing-digest.js';
export type { SigningInput } from './signing-digest.js';
export * from './auth/index.js';
export * from './ucan/index.js';
