import { describe, expect, it } from 'vitest';
import { generateApiKey } from '../../../src/security/auth/api-keys.js';
import { authenticator } from '../../../src/security/auth/authenticator.js';
import { issueToken } from '../../../src/security/auth/jwt-issuer.js';
import { tokenVerifier, type BearerVerifier } from '../../../src/security/auth/jwt-verifier.js';
import type { Principal } from '../../../src/security/auth/principal.js';
import { VerifiedTokenCache } from '../../../src/security/auth/token-cache.js';
import { expectPlexusError, expectPlexusErrorAsync } from '../expect-error.js';
import { T0, b64, claims, expectAuthError, nodeKey, otherKey, signEd25519 } from './tokens.js';

/** A clock the test moves by hand. */
function clock(start = T0) {
  let t = start;
  return { now: () => t, set: (ms: number) => (t = ms) };
}

/** The real verifier on `now`, wrapped to count the verifications that reach it. */
function countingVerifier(now: () => number) {
  const inner = tokenVerifier({ issuerKeys: [nodeKey], now });
  const spy = {
    calls: 0,
    inner,
    verify(token: string) {
      spy.calls++;
      return inner.verify(token);
    },
  };
  return spy;
}

const bearer = (token: string) => `Bearer ${token}`;

describe('authenticator', () => {
  it('verifies a node token once, then serves it from the cache', async () => {
    const c = clock();
    const jwt = countingVerifier(c.now);
    const auth = authenticator({ jwt, now: c.now });
    const { token } = await issueToken({ key: nodeKey, subject: 'alice', now: c.now, scopes: ['a'] });
    const first = await auth.authenticate(bearer(token));
    for (let i = 0; i < 50; i++) expect(await auth.authenticate(bearer(token))).toBe(first);
    expect(first).toMatchObject({ id: 'alice', kind: 'jwt', scopes: ['a'] });
    expect(jwt.calls).toBe(1);
    expect(jwt.inner.signatureChecks).toBe(1);
    expect(auth.stats()).toMatchObject({ cacheHits: 50, verifications: 1, cached: 1 });
  });

  it('shares the cache between spellings of the same header', async () => {
    const c = clock();
    const jwt = countingVerifier(c.now);
    const auth = authenticator({ jwt, now: c.now });
    const { token } = await issueToken({ key: nodeKey, subject: 'alice', now: c.now });
    for (const header of [`Bearer ${token}`, `bearer ${token}`, `BEARER  ${token} `, ` Bearer ${token}`]) {
      await expect(auth.authenticate(header)).resolves.toMatchObject({ id: 'alice' });
    }
    expect(jwt.calls).toBe(1);
  });

  it('shares one verification among concurrent requests with the same token', async () => {
    const c = clock();
    const jwt = countingVerifier(c.now);
    const auth = authenticator({ jwt, now: c.now });
    const { token } = await issueToken({ key: nodeKey, subject: 'alice', now: c.now });
    const principals = await Promise.all(Array.from({ length: 20 }, () => auth.authenticate(bearer(token))));
    expect(new Set(principals).size).toBe(1);
    expect(jwt.inner.signatureChecks).toBe(1);
  });

  it('never serves a cached token past its exp, and refuses it as expired', async () => {
    const c = clock();
    const jwt = countingVerifier(c.now);
    const auth = authenticator({ jwt: { issuerKeys: [nodeKey], clockToleranceSec: 0 }, now: c.now });
    const spied = authenticator({ jwt, now: c.now });
    const { token } = await issueToken({ key: nodeKey, subject: 'alice', ttl: 60, now: c.now });
    await auth.authenticate(bearer(token));
    await spied.authenticate(bearer(token));
    c.set(T0 + 59_999);
    await expect(auth.authenticate(bearer(token))).resolves.toMatchObject({ id: 'alice' });
    c.set(T0 + 60_000);
    const error = await expectAuthError(() => auth.authenticate(bearer(token)), 'expired');
    expect(error.message).toContain('token expired at 2030-01-01T00:01:00.000Z');
    expect(auth.stats().cached).toBe(0);
    // Past exp the cache is bypassed: the verifier is asked again (here within its 30 s tolerance).
    await spied.authenticate(bearer(token));
    expect(jwt.calls).toBe(2);
  });

  it('does not cache refused tokens', async () => {
    const c = clock();
    const jwt = countingVerifier(c.now);
    const auth = authenticator({ jwt, now: c.now });
    const forged = signEd25519({ alg: 'EdDSA' }, claims(), otherKey);
    await expectAuthError(() => auth.authenticate(bearer(forged)), 'signature');
    await expectAuthError(() => auth.authenticate(bearer(forged)), 'signature');
    expect(jwt.calls).toBe(2);
    expect(auth.stats().cached).toBe(0);
  });

  it('revokes a token id: drops it from the cache and refuses it afterwards', async () => {
    const c = clock();
    const auth = authenticator({ jwt: { issuerKeys: [nodeKey] }, now: c.now });
    const { token, tokenId } = await issueToken({ key: nodeKey, subject: 'alice', now: c.now });
    const other = await issueToken({ key: nodeKey, subject: 'bob', now: c.now });
    await auth.authenticate(bearer(token));
    await auth.authenticate(bearer(other.token));
    expect(auth.stats().cached).toBe(2);
    auth.revoke(tokenId);
    expect(auth.stats().cached).toBe(1);
    expect(auth.isRevoked(tokenId)).toBe(true);
    const error = await expectAuthError(() => auth.authenticate(bearer(token)), 'revoked');
    expect(error.message).toContain(tokenId);
    await expect(auth.authenticate(bearer(other.token))).resolves.toMatchObject({ id: 'bob' });
  });

  it('refuses a token revoked while its verification was in flight', async () => {
    const c = clock();
    const auth = authenticator({ jwt: { issuerKeys: [nodeKey] }, now: c.now });
    const { token, tokenId } = await issueToken({ key: nodeKey, subject: 'alice', now: c.now });
    const pending = auth.authenticate(bearer(token));
    auth.revoke(tokenId);
    await expectAuthError(() => pending, 'revoked');
    expect(auth.stats().cached).toBe(0);
  });

  it('forgets a revocation after its end, and bounds how many it keeps', () => {
    const c = clock();
    const auth = authenticator({ jwt: { issuerKeys: [nodeKey] }, now: c.now, maxRevocations: 3 });
    auth.revoke('a', T0 + 1000);
    c.set(T0 + 1000);
    expect(auth.isRevoked('a')).toBe(false);
    for (const id of ['b', 'c', 'd', 'e']) auth.revoke(id);
    expect(auth.stats().revoked).toBe(3);
    expect(auth.isRevoked('b')).toBe(false);
    expect(auth.isRevoked('e')).toBe(true);
    expectPlexusError(() => {
      auth.revoke('');
    }, 'INVALID_PARAMS');
  });

  it('authenticates API keys, and revokes them by id', async () => {
    const key = generateApiKey();
    const auth = authenticator({
      apiKeys: { keys: [{ hash: key.hash, subject: 'ci', scopes: 'jobs:write' }] },
    });
    await expect(auth.authenticate(bearer(key.key))).resolves.toMatchObject({ id: 'ci', kind: 'api-key' });
    await expectAuthError(() => auth.authenticate(bearer(generateApiKey().key)), 'unknown-key');
    auth.revoke(key.id);
    await expectAuthError(() => auth.authenticate(bearer(key.key)), 'revoked');
  });

  it('refuses a kind of credential it was not configured for', async () => {
    const { token } = await issueToken({ key: nodeKey, subject: 'alice' });
    const jwtOnly = authenticator({ jwt: { issuerKeys: [nodeKey] } });
    const keysOnly = authenticator({ apiKeys: { keys: [] } });
    expect(
      (await expectAuthError(() => jwtOnly.authenticate(bearer(generateApiKey().key)), 'unsupported'))
        .message,
    ).toContain('plexus token issue');
    await expectAuthError(() => keysOnly.authenticate(bearer(token)), 'unsupported');
  });

  it('refuses missing and malformed headers with a hint', async () => {
    const auth = authenticator({ jwt: { issuerKeys: [nodeKey] } });
    expect((await expectAuthError(() => auth.authenticate(undefined), 'missing')).message).toContain(
      'plexus token issue',
    );
    await expectAuthError(() => auth.authenticate('Basic dXNlcjpwYXNz'), 'scheme');
    await expectAuthError(() => auth.authenticate('Bearer'), 'malformed');
    await expectAuthError(() => auth.authenticate('Bearer opaque-garbage'), 'malformed');
    await expectAuthError(() => auth.authenticate('Bearer a.b.c'), 'malformed');
  });

  it('gives the anonymous principal to requests without credentials only when allowed', async () => {
    const dev = authenticator({ jwt: { issuerKeys: [nodeKey] }, allowAnonymous: true });
    await expect(dev.authenticate(undefined)).resolves.toMatchObject({ id: 'anonymous', kind: 'anonymous' });
    await expect(dev.authenticate('')).resolves.toMatchObject({ kind: 'anonymous' });
    // A credential that is present is still checked.
    await expectAuthError(() => dev.authenticate('Bearer a.b.c'), 'malformed');
  });

  it('routes JWTs with a ucv header to the UCAN verifier', async () => {
    const seen: string[] = [];
    const ucan: BearerVerifier = {
      verify(token: string): Promise<Principal> {
        seen.push(token);
        return Promise.resolve({
          id: 'did:key:z6MkUcan',
          kind: 'ucan',
          scopes: [],
          expiresAt: T0 + 1000,
          tokenId: 'u1',
        });
      },
    };
    const c = clock();
    const auth = authenticator({ jwt: { issuerKeys: [nodeKey] }, ucan, now: c.now });
    const token = `${b64({ alg: 'EdDSA', typ: 'JWT', ucv: '0.10.0' })}.${b64({ iss: 'x' })}.AAAA`;
    await expect(auth.authenticate(bearer(token))).resolves.toMatchObject({ kind: 'ucan' });
    await auth.authenticate(bearer(token));
    expect(seen).toHaveLength(1);
    const noUcan = authenticator({ jwt: { issuerKeys: [nodeKey] }, now: c.now });
    await expectAuthError(() => noUcan.authenticate(bearer(token)), 'unsupported');
  });

  it('honours an aborted signal', async () => {
    const auth = authenticator({ jwt: { issuerKeys: [nodeKey] } });
    await expectPlexusErrorAsync(
      () => auth.authenticate('Bearer x', { signal: AbortSignal.abort() }),
      'CANCELLED',
    );
  });

  it('refuses bad options', () => {
    expectPlexusError(() => authenticator({ cacheSize: 0 }), 'INVALID_PARAMS');
    expectPlexusError(() => authenticator({ maxRevocations: -1 }), 'INVALID_PARAMS');
    expectPlexusError(() => authenticator({ jwt: {} }), 'INVALID_PARAMS');
  });
});

describe('VerifiedTokenCache', () => {
  const p = (tokenId: string): Principal => ({ id: 'x', kind: 'jwt', scopes: [], tokenId });

  it('evicts the least recently used entry when full', () => {
    const cache = new VerifiedTokenCache(2);
    cache.set('a', p('1'), T0 + 10, T0);
    cache.set('b', p('2'), T0 + 10, T0);
    expect(cache.get('a', T0)).toBeDefined();
    cache.set('c', p('3'), T0 + 10, T0);
    expect(cache.get('b', T0)).toBeUndefined();
    expect(cache.get('a', T0)).toBeDefined();
    expect(cache.get('c', T0)).toBeDefined();
    expect(cache.size).toBe(2);
  });

  it('never returns an entry at or after its expiry, and never stores an expired one', () => {
    const cache = new VerifiedTokenCache(4);
    cache.set('a', p('1'), T0 + 10, T0);
    expect(cache.get('a', T0 + 9)).toBeDefined();
    expect(cache.get('a', T0 + 10)).toBeUndefined();
    expect(cache.size).toBe(0);
    cache.set('b', p('2'), T0, T0);
    expect(cache.size).toBe(0);
  });

  it('drops entries by token id', () => {
    const cache = new VerifiedTokenCache(4);
    cache.set('a', p('1'), T0 + 10, T0);
    cache.set('b', p('1'), T0 + 10, T0);
    cache.set('c', p('2'), T0 + 10, T0);
    expect(cache.deleteTokenId('1')).toBe(2);
    expect(cache.size).toBe(1);
  });
});
