// Test helpers: hand-built JWS tokens, so tests can craft any header, claims and signature.
import { createHmac, sign as cryptoSign } from 'node:crypto';
import { expect } from 'vitest';
import type { PlexusError } from '../../../src/core/errors.js';
import type { Ed25519KeyPair } from '../../../src/security/ed25519.js';
import { keyPairFromSeed } from '../../../src/security/ed25519.js';
import { identityFromPublicKey } from '../../../src/security/identity.js';
import { expectPlexusErrorAsync } from '../expect-error.js';
import { HTTP_STATUS } from '../../../src/transports/http/http-status.js';

/** 2030-01-01T00:00:00Z in Unix ms: the fixed "now" of the auth tests. */
export const T0 = Date.UTC(2030, 0, 1);
/** T0 in Unix seconds. */
export const T0_SEC = T0 / 1000;

export const nodeKey = keyPairFromSeed('11'.repeat(32));
export const otherKey = keyPairFromSeed('22'.repeat(32));
export const NODE_DID = identityFromPublicKey(nodeKey.publicKey).did;
export const OTHER_DID = identityFromPublicKey(otherKey.publicKey).did;

export const b64 = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64url');

/** Claims a valid node token would carry at T0. */
export function claims(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    iss: NODE_DID,
    sub: 'agent:alpha',
    aud: NODE_DID,
    iat: T0_SEC,
    exp: T0_SEC + 3600,
    jti: 'jti-1',
    ...extra,
  };
}

/** A compact JWS over `header`.`payload`, signed with Ed25519 by `key`. */
export function signEd25519(
  header: Record<string, unknown>,
  payload: Record<string, unknown>,
  key: Ed25519KeyPair = nodeKey,
): string {
  const input = `${b64(header)}.${b64(payload)}`;
  return `${input}.${cryptoSign(null, Buffer.from(input), key.privateKeyObject).toString('base64url')}`;
}

/** A compact JWS with an HMAC-SHA256 "signature" keyed by `secret` (the algorithm-confusion attack). */
export function signHs256(payload: Record<string, unknown>, secret: Uint8Array | string): string {
  const input = `${b64({ alg: 'HS256', typ: 'JWT' })}.${b64(payload)}`;
  return `${input}.${createHmac('sha256', secret).update(input).digest('base64url')}`;
}

/** Expects `fn` to reject with UNAUTHORIZED and `details.reason` = `reason`; returns the error. */
export async function expectAuthError(fn: () => Promise<unknown>, reason: string): Promise<PlexusError> {
  const error = await expectPlexusErrorAsync(fn, 'UNAUTHORIZED');
  expect(error.details?.reason, error.message).toBe(reason);
  expect(HTTP_STATUS[error.code]).toBe(401);
  return error;
}
