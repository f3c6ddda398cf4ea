import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  API_KEY_LENGTH,
  apiKeyVerifier,
  generateApiKey,
  hashApiKey,
  isApiKeyFormat,
} from '../../../src/security/auth/api-keys.js';
import { expectPlexusError } from '../expect-error.js';
import { T0 } from './tokens.js';

const expectRefused = (fn: () => unknown, reason: string) => {
  const error = expectPlexusError(fn, 'UNAUTHORIZED');
  expect(error.details?.reason, error.message).toBe(reason);
  return error;
};

describe('generateApiKey / hashApiKey', () => {
  it('makes plx_ keys of 32 random bytes and their SHA-256', () => {
    const { key, hash, id } = generateApiKey();
    expect(key).toMatch(/^plx_[A-Za-z0-9_-]{43}$/);
    expect(key).toHaveLength(API_KEY_LENGTH);
    expect(Buffer.from(key.slice(4), 'base64url')).toHaveLength(32);
    expect(hash).toBe(createHash('sha256').update(key).digest('hex'));
    expect(id).toBe(hash.slice(0, 12));
    expect(generateApiKey().key).not.toBe(key);
  });

  it('recognises the format', () => {
    expect(isApiKeyFormat(generateApiKey().key)).toBe(true);
    for (const bad of [
      'plx_',
      'plx_short',
      `pk_${'A'.repeat(43)}`,
      `plx_${'A'.repeat(42)}*`,
      `plx_${'A'.repeat(42)}B`,
      42,
    ]) {
      expect(isApiKeyFormat(bad)).toBe(false);
    }
    expectPlexusError(() => hashApiKey('plx_nope'), 'INVALID_PARAMS');
  });
});

describe('apiKeyVerifier', () => {
  const alice = generateApiKey();
  const bob = generateApiKey();
  const verifier = apiKeyVerifier({
    keys: [
      { hash: alice.hash, subject: 'alice', scopes: 'jobs:read jobs:write', tenant: 'acme' },
      { hash: bob.hash, subject: 'bob', id: 'bob-ci', expiresAt: T0 + 1000 },
    ],
    now: () => T0,
  });

  it('maps a configured key to its principal', () => {
    expect(verifier.verify(alice.key)).toEqual({
      id: 'alice',
      kind: 'api-key',
      scopes: ['jobs:read', 'jobs:write'],
      tenant: 'acme',
      tokenId: alice.id,
    });
    expect(verifier.verify(bob.key)).toMatchObject({
      id: 'bob',
      tokenId: 'bob-ci',
      scopes: [],
      expiresAt: T0 + 1000,
    });
    expect(verifier.ids).toEqual([alice.id, 'bob-ci']);
  });

  it('refuses a well-formed key that is not configured', () => {
    const error = expectRefused(() => verifier.verify(generateApiKey().key), 'unknown-key');
    expect(error.message).toMatch(/not configured/);
  });

  it('refuses a key differing in one character', () => {
    const last = alice.key.at(-1) === 'A' ? 'Q' : 'A';
    expectRefused(() => verifier.verify(alice.key.slice(0, -1) + last), 'unknown-key');
  });

  it('refuses the stored hash presented as the key', () => {
    expectRefused(() => verifier.verify(alice.hash), 'malformed');
  });

  it.each(['', 'plx_', 'plx_abc', ' '.repeat(47), `plx_${'A'.repeat(44)}`])(
    'refuses malformed key %j',
    (key) => {
      expectRefused(() => verifier.verify(key), 'malformed');
    },
  );

  it('refuses an expired key', () => {
    const later = apiKeyVerifier({
      keys: [{ hash: bob.hash, subject: 'bob', expiresAt: T0 + 1000 }],
      now: () => T0 + 1000,
    });
    expectRefused(() => later.verify(bob.key), 'expired');
  });

  it.each([
    ['a plaintext key as hash', [{ hash: alice.key, subject: 'a' }]],
    ['an upper-case hash', [{ hash: alice.hash.toUpperCase(), subject: 'a' }]],
    [
      'a duplicate key',
      [
        { hash: alice.hash, subject: 'a' },
        { hash: alice.hash, subject: 'b' },
      ],
    ],
    [
      'a duplicate id',
      [
        { hash: alice.hash, subject: 'a', id: 'x' },
        { hash: bob.hash, subject: 'b', id: 'x' },
      ],
    ],
    ['an empty subject', [{ hash: alice.hash, subject: '' }]],
    ['a bad scope', [{ hash: alice.hash, subject: 'a', scopes: ['a b'] }]],
  ])('refuses configuration with %s', (_name, keys) => {
    expectPlexusError(() => apiKeyVerifier({ keys }), 'INVALID_PARAMS');
  });
});
