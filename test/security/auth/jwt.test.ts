import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { identityFromPublicKey } from '../../../src/security/identity.js';
import { decodeUnverifiedToken, tokenVerifier } from '../../../src/security/auth/jwt-verifier.js';
import { DEFAULT_TOKEN_TTL_SEC, issueToken } from '../../../src/security/auth/jwt-issuer.js';
import { parseTtl } from '../../../src/security/auth/duration.js';
import { expectPlexusError, expectPlexusErrorAsync } from '../expect-error.js';
import {
  NODE_DID,
  OTHER_DID,
  T0,
  T0_SEC,
  b64,
  claims,
  expectAuthError,
  nodeKey,
  otherKey,
  signEd25519,
  signHs256,
} from './tokens.js';

const at = (ms: number) => () => ms;
const verifier = (nowMs = T0) => tokenVerifier({ issuerKeys: [nodeKey], now: at(nowMs) });
const issue = (extra: Partial<Parameters<typeof issueToken>[0]> = {}) =>
  issueToken({ key: nodeKey, subject: 'agent:alpha', now: at(T0), ...extra });

describe('issueToken', () => {
  it('issues an EdDSA JWT with the D14 claims', async () => {
    const issued = await issue({ scopes: ['jobs:read', 'jobs:write'], tenant: 'acme', tokenId: 'tok-1' });
    const { header, payload } = decodeUnverifiedToken(issued.token);
    expect(header).toEqual({ alg: 'EdDSA', typ: 'JWT' });
    expect(payload).toEqual({
      iss: NODE_DID,
      sub: 'agent:alpha',
      aud: NODE_DID,
      iat: T0_SEC,
      exp: T0_SEC + DEFAULT_TOKEN_TTL_SEC,
      jti: 'tok-1',
      scope: 'jobs:read jobs:write',
      tenant: 'acme',
    });
    expect(issued).toMatchObject({
      issuer: NODE_DID,
      subject: 'agent:alpha',
      audience: [NODE_DID],
      scopes: ['jobs:read', 'jobs:write'],
      tenant: 'acme',
      issuedAt: T0,
      expiresAt: T0 + 3600_000,
      tokenId: 'tok-1',
    });
  });

  it('gives each token a fresh random jti', async () => {
    const a = await issue();
    const b = await issue();
    expect(a.tokenId).not.toBe(b.tokenId);
    expect(a.tokenId).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('takes ttl as text, several audiences, a scope string and nbf', async () => {
    const issued = await issue({
      ttl: '15m',
      audience: ['node-a', 'node-b'],
      scopes: 'a  b a',
      notBefore: T0 + 60_000,
    });
    const { payload } = decodeUnverifiedToken(issued.token);
    expect(payload.exp).toBe(T0_SEC + 900);
    expect(payload.aud).toEqual(['node-a', 'node-b']);
    expect(payload.scope).toBe('a b');
    expect(payload.nbf).toBe(T0_SEC + 60);
  });

  it('leaves out scope and tenant when not given', async () => {
    const { payload } = decodeUnverifiedToken((await issue()).token);
    expect(payload).not.toHaveProperty('scope');
    expect(payload).not.toHaveProperty('tenant');
    expect(payload).not.toHaveProperty('nbf');
  });

  it.each([
    ['an empty subject', { subject: '' }],
    ['a subject with a newline', { subject: 'alice\nadmin' }],
    ['a subject over 256 characters', { subject: 'x'.repeat(257) }],
    ['a scope with a quote', { scopes: ['a"b'] }],
    ['an empty scope in a list', { scopes: [''] }],
    ['a zero lifetime', { ttl: 0 }],
    ['a negative lifetime', { ttl: -5 }],
    ['a lifetime over 366 days', { ttl: '400d' }],
    ['a lifetime in words', { ttl: 'one hour' }],
    ['an empty audience list', { audience: [] }],
    ['an empty tenant', { tenant: '' }],
    ['nbf after exp', { notBefore: T0 + 7200_000 }],
  ])('refuses %s', async (_name, extra) => {
    await expectPlexusErrorAsync(() => issue(extra), 'INVALID_PARAMS');
  });

  it('honours an aborted signal', async () => {
    await expectPlexusErrorAsync(() => issue({ signal: AbortSignal.abort() }), 'CANCELLED');
  });
});

describe('parseTtl', () => {
  it.each([
    [3600, 3600],
    ['3600', 3600],
    ['90s', 90],
    ['15m', 900],
    ['1h', 3600],
    ['7d', 604_800],
    ['2w', 1_209_600],
  ])('reads %s as %i seconds', (text, seconds) => {
    expect(parseTtl(text)).toBe(seconds);
  });

  it.each([0, 1.5, '0', '1.5h', '-1h', '1y', 'h', '', 367 * 86_400])('refuses %s', (text) => {
    expectPlexusError(() => parseTtl(text), 'INVALID_PARAMS');
  });
});

describe('tokenVerifier', () => {
  it('accepts a token it issued and returns the principal', async () => {
    const { token } = await issue({ scopes: ['jobs:read'], tenant: 'acme', tokenId: 't-9' });
    const principal = await verifier().verify(token);
    expect(principal).toEqual({
      id: 'agent:alpha',
      kind: 'jwt',
      scopes: ['jobs:read'],
      tenant: 'acme',
      expiresAt: T0 + 3600_000,
      tokenId: 't-9',
      issuer: NODE_DID,
    });
    expect(Object.isFrozen(principal)).toBe(true);
  });

  it('accepts tokens of a trusted peer issuer addressed to this node', async () => {
    const { token } = await issueToken({
      key: otherKey,
      subject: 'peer-agent',
      audience: NODE_DID,
      now: at(T0),
    });
    const v = tokenVerifier({ issuerKeys: [nodeKey], trustedIssuers: [OTHER_DID], now: at(T0) });
    expect((await v.verify(token)).issuer).toBe(OTHER_DID);
    expect(v.issuers).toEqual([NODE_DID, OTHER_DID]);
  });

  it('accepts a token within the clock tolerance after exp, and refuses it beyond', async () => {
    const { token } = await issue({ ttl: 60 });
    await expect(verifier(T0 + 60_000 + 29_000).verify(token)).resolves.toMatchObject({ id: 'agent:alpha' });
    await expectAuthError(() => verifier(T0 + 60_000 + 30_000).verify(token), 'expired');
  });

  it('counts one signature check per verification', async () => {
    const { token } = await issue();
    const v = verifier();
    await v.verify(token);
    await v.verify(token);
    expect(v.signatureChecks).toBe(2);
  });

  describe('refuses', () => {
    it('a token forged with another key', async () => {
      const forged = signEd25519({ alg: 'EdDSA', typ: 'JWT' }, claims(), otherKey);
      const v = verifier();
      const error = await expectAuthError(() => v.verify(forged), 'signature');
      expect(error.message).toMatch(/signature does not verify/);
      expect(v.signatureChecks).toBe(1);
    });

    it('a token whose payload was altered', async () => {
      const { token } = await issue({ scopes: ['jobs:read'] });
      const [h, p, s] = token.split('.') as [string, string, string];
      const payload = JSON.parse(Buffer.from(p, 'base64url').toString()) as Record<string, unknown>;
      const tampered = `${h}.${b64({ ...payload, scope: 'admin' })}.${s}`;
      await expectAuthError(() => verifier().verify(tampered), 'signature');
    });

    it('a token whose signature was altered', async () => {
      const { token } = await issue();
      const last = token.at(-2) === 'A' ? 'B' : 'A';
      await expectAuthError(
        () => verifier().verify(`${token.slice(0, -2)}${last}${token.at(-1) ?? ''}`),
        'signature',
      );
    });

    it('alg "none" without doing any signature work', async () => {
      const v = verifier();
      for (const alg of ['none', 'None', 'NONE']) {
        for (const sig of ['', 'AAAA']) {
          const unsigned = `${b64({ alg, typ: 'JWT' })}.${b64(claims())}.${sig}`;
          const error = await expectAuthError(() => v.verify(unsigned), 'algorithm');
          expect(error.message).toMatch(/alg "none"/);
        }
      }
      expect(v.signatureChecks).toBe(0);
    });

    it('an EdDSA token with an empty signature', async () => {
      const { token } = await issue();
      const error = await expectAuthError(
        () => verifier().verify(token.slice(0, token.lastIndexOf('.') + 1)),
        'malformed',
      );
      expect(error.message).toMatch(/no signature/);
    });

    it('HS256 keyed with the public key (algorithm confusion)', async () => {
      const v = verifier();
      const secrets = [
        nodeKey.publicKey,
        nodeKey.publicKeyObject.export({ format: 'pem', type: 'spki' }),
        identityFromPublicKey(nodeKey.publicKey).publicKeyBase64Url,
      ];
      for (const secret of secrets) {
        const error = await expectAuthError(() => v.verify(signHs256(claims(), secret)), 'algorithm');
        expect(error.message).toMatch(/"HS256" is not accepted/);
      }
      expect(v.signatureChecks).toBe(0);
    });

    it.each(['RS256', 'ES256', 'Ed25519', 'EDDSA', 42, undefined])('algorithm %s', async (alg) => {
      await expectAuthError(() => verifier().verify(signEd25519({ alg, typ: 'JWT' }, claims())), 'algorithm');
    });

    it('an expired token, saying when it expired', async () => {
      const { token } = await issue({ ttl: '1h' });
      const v = verifier(T0 + 2 * 3600_000);
      const error = await expectAuthError(() => v.verify(token), 'expired');
      expect(error.message).toContain('token expired at 2030-01-01T01:00:00.000Z');
      expect(v.signatureChecks).toBe(0);
    });

    it('a token whose nbf is in the future', async () => {
      const { token } = await issue({ notBefore: T0 + 600_000 });
      const error = await expectAuthError(() => verifier().verify(token), 'not-yet-valid');
      expect(error.message).toContain('not valid before 2030-01-01T00:10:00.000Z');
      await expect(verifier(T0 + 600_000).verify(token)).resolves.toMatchObject({ id: 'agent:alpha' });
    });

    it('a token issued in the future', async () => {
      const token = signEd25519({ alg: 'EdDSA' }, claims({ iat: T0_SEC + 600, exp: T0_SEC + 7200 }));
      await expectAuthError(() => verifier().verify(token), 'not-yet-valid');
    });

    it('a token for another audience', async () => {
      const { token } = await issue({ audience: 'did:key:z6MkSomeoneElse' });
      const error = await expectAuthError(() => verifier().verify(token), 'audience');
      expect(error.message).toContain('not this node');
    });

    it('a token without aud', async () => {
      const token = signEd25519({ alg: 'EdDSA' }, claims({ aud: undefined }));
      await expectAuthError(() => verifier().verify(token), 'audience');
    });

    it('a token from an unknown issuer, even when well signed', async () => {
      const { token } = await issueToken({ key: otherKey, subject: 's', audience: NODE_DID, now: at(T0) });
      const v = verifier();
      const error = await expectAuthError(() => v.verify(token), 'issuer');
      expect(error.message).toContain(OTHER_DID);
      expect(v.signatureChecks).toBe(0);
    });

    it('a token without iss', async () => {
      await expectAuthError(
        () => verifier().verify(signEd25519({ alg: 'EdDSA' }, claims({ iss: undefined }))),
        'issuer',
      );
    });

    it.each([
      ['no exp', { exp: undefined }],
      ['a string exp', { exp: '2030-01-01' }],
      ['no iat', { iat: undefined }],
      ['no sub', { sub: undefined }],
      ['an empty sub', { sub: '' }],
      ['a sub with a control character', { sub: 'a\u0000b' }],
      ['no jti', { jti: undefined }],
      ['a numeric tenant', { tenant: 7 }],
      ['a scope array', { scope: ['a'] }],
      ['a scope with a backslash', { scope: 'a\\b' }],
    ])('a well-signed token with %s', async (_name, extra) => {
      const v = verifier();
      await expectAuthError(() => v.verify(signEd25519({ alg: 'EdDSA' }, claims(extra))), 'claims');
      expect(v.signatureChecks).toBe(0);
    });

    it('a header with crit or ucv, or an unexpected typ', async () => {
      await expectAuthError(
        () => verifier().verify(signEd25519({ alg: 'EdDSA', crit: ['b64'], b64: false }, claims())),
        'unsupported',
      );
      await expectAuthError(
        () => verifier().verify(signEd25519({ alg: 'EdDSA', ucv: '0.10.0' }, claims())),
        'unsupported',
      );
      await expectAuthError(
        () => verifier().verify(signEd25519({ alg: 'EdDSA', typ: 'at+jwt' }, claims())),
        'malformed',
      );
    });

    it.each([
      ['garbage', 'not a token'],
      ['an empty string', ''],
      ['two parts', 'abc.def'],
      ['four parts', 'a.b.c.d'],
      ['a JWE', 'a.b.c.d.e'],
      ['a header that is not JSON', `${Buffer.from('{nope').toString('base64url')}.${b64(claims())}.AAAA`],
      ['a header that is an array', `${b64(['EdDSA'])}.${b64(claims())}.AAAA`],
      ['a payload that is not base64url', `${b64({ alg: 'EdDSA' })}.***.AAAA`],
      [
        'a payload that is not UTF-8',
        `${b64({ alg: 'EdDSA' })}.${Buffer.from([0xff, 0xfe]).toString('base64url')}.AAAA`,
      ],
      ['a payload that is a number', `${b64({ alg: 'EdDSA' })}.${b64(42)}.AAAA`],
      ['an oversized token', `${b64({ alg: 'EdDSA' })}.${'A'.repeat(9000)}.AAAA`],
    ])('%s as malformed', async (_name, token) => {
      await expectAuthError(() => verifier().verify(token), 'malformed');
    });

    it('when aborted', async () => {
      const { token } = await issue();
      await expectPlexusErrorAsync(
        () => verifier().verify(token, { signal: AbortSignal.abort() }),
        'CANCELLED',
      );
    });
  });

  it('refuses bad options at construction', () => {
    expectPlexusError(() => tokenVerifier({}), 'INVALID_PARAMS');
    expectPlexusError(() => tokenVerifier({ trustedIssuers: ['did:key:nope'] }), 'INVALID_PARAMS');
    expectPlexusError(() => tokenVerifier({ trustedIssuers: [OTHER_DID] }), 'INVALID_PARAMS');
    expectPlexusError(
      () => tokenVerifier({ issuerKeys: [nodeKey], clockToleranceSec: -1 }),
      'INVALID_PARAMS',
    );
    expect(tokenVerifier({ trustedIssuers: [OTHER_DID], audience: 'node-x' }).audience).toEqual(['node-x']);
  });

  it('round-trips any subject, scopes and tenant (property)', async () => {
    const text = fc
      .string({ minLength: 1, maxLength: 40, unit: 'grapheme' })
      // eslint-disable-next-line no-control-regex -- subjects may not hold control characters.
      .filter((s) => !/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/.test(s));
    const scope = fc.string({
      minLength: 1,
      maxLength: 20,
      unit: fc.constantFrom(...'abcXYZ09:*._-/!#~'.split('')),
    });
    const v = verifier();
    await fc.assert(
      fc.asyncProperty(
        text,
        fc.array(scope, { maxLength: 6 }),
        fc.option(text, { nil: undefined }),
        async (subject, scopes, tenant) => {
          const issued = await issueToken({
            key: nodeKey,
            subject,
            scopes,
            now: at(T0),
            ...(tenant === undefined ? {} : { tenant }),
          });
          const principal = await v.verify(issued.token);
          expect(principal.id).toBe(subject);
          expect(principal.scopes).toEqual([...new Set(scopes)]);
          expect(principal.tenant).toBe(tenant);
          expect(principal.tokenId).toBe(issued.tokenId);
          expect(principal.expiresAt).toBe(issued.expiresAt);
        },
      ),
      { numRuns: 150 },
    );
  });
});
