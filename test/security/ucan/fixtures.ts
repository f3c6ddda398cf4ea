// Shared keys, a fixed clock and a chain builder for the UCAN tests.
import { expect } from 'vitest';
import { keyPairFromSeed, type Ed25519KeyPair } from '../../../src/security/ed25519.js';
import { identityFromPublicKey } from '../../../src/security/identity.js';
import {
  signUcan,
  type Capabilities,
  type SignUcanInit,
  type Ucan,
} from '../../../src/security/ucan/ucan-token.js';
import { expectPlexusError } from '../expect-error.js';
import type { PlexusError, PlexusErrorCode } from '../../../src/core/errors.js';

/** 2030-01-01T00:00:00Z in ms. */
export const T0 = Date.UTC(2030, 0, 1);

export interface Party {
  readonly key: Ed25519KeyPair;
  readonly did: string;
}

function party(seedByte: string): Party {
  const key = keyPairFromSeed(seedByte.repeat(32));
  return { key, did: identityFromPublicKey(key.publicKey).did };
}

/** The trusted root (e.g. the node's owner). */
export const root = party('01');
/** A first delegate. */
export const alice = party('02');
/** A second delegate. */
export const bob = party('03');
/** The node that runs invocations (the audience of presented tokens). */
export const node = party('04');
/** Nobody's trusted. */
export const mallory = party('05');

/** Everything on every AGENTESE resource. */
export const ALL: Capabilities = { 'agentese:*': { '*': [{}] } };

/** Signs a token with the fixed clock (1 h lifetime unless told). */
export function token(
  from: Party,
  to: Party | string,
  cap: Capabilities,
  extra: Partial<Omit<SignUcanInit, 'key' | 'audience' | 'capabilities'>> = {},
): Ucan {
  return signUcan({
    key: from.key,
    audience: typeof to === 'string' ? to : to.did,
    capabilities: cap,
    now: () => T0,
    ...extra,
  });
}

/** Expects a refusal with `code` and `details.reason`; returns it. */
export function expectRefusal(fn: () => unknown, code: PlexusErrorCode, reason: string): PlexusError {
  const error = expectPlexusError(fn, code);
  expect(error.details?.['reason'], error.message).toBe(reason);
  return error;
}
