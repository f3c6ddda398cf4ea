/**
 * Bearer authentication for the node's faces (DESIGN D14): node-issued EdDSA JWTs, API keys,
 * one authenticator with a verified-token cache and revocation, and the dev-mode rule.
 */
export {
  API_KEY_BYTES,
  API_KEY_LENGTH,
  API_KEY_PREFIX,
  apiKeyVerifier,
  generateApiKey,
  hashApiKey,
  isApiKeyFormat,
} from './api-keys.js';
export type { ApiKeyEntry, ApiKeyVerifier, ApiKeyVerifierInit, GeneratedApiKey } from './api-keys.js';
export {
  AUTH_FAILURE_REASONS,
  HOW_TO_GET_A_TOKEN,
  authError,
  authFailureReason,
  bearerChallenge,
} from './auth-error.js';
export type { AuthFailureReason } from './auth-error.js';
export { DEFAULT_MAX_REVOCATIONS, authenticator } from './authenticator.js';
export type { Authenticator, AuthenticatorInit, AuthenticatorStats } from './authenticator.js';
export { bearerToken, bearerTokenKind } from './bearer.js';
export type { BearerTokenKind } from './bearer.js';
export { issueTokenForCli } from './cli-token.js';
export type { IssueTokenForCliInit } from './cli-token.js';
export { authPolicy, authRequired, isLoopbackHost } from './dev-mode.js';
export type { AuthPolicy, AuthPolicyInit } from './dev-mode.js';
export { MAX_TOKEN_TTL_SEC, parseTtl } from './duration.js';
export { DEFAULT_TOKEN_TTL_SEC, TOKEN_ALGORITHM, issueToken } from './jwt-issuer.js';
export type { IssueTokenInit, IssuedToken } from './jwt-issuer.js';
export {
  DEFAULT_CLOCK_TOLERANCE_SEC,
  MAX_TOKEN_LENGTH,
  decodeUnverifiedToken,
  tokenVerifier,
} from './jwt-verifier.js';
export type { BearerVerifier, TokenVerifier, TokenVerifierInit, VerifyOptions } from './jwt-verifier.js';
export {
  ANONYMOUS_PRINCIPAL_ID,
  MAX_CLAIM_LENGTH,
  anonymousPrincipal,
  assertClaimText,
  isScopeToken,
  normalizeScopes,
} from './principal.js';
export type { Principal, PrincipalKind } from './principal.js';
export { DEFAULT_TOKEN_CACHE_SIZE, VerifiedTokenCache } from './token-cache.js';
