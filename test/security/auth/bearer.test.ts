import { describe, expect, it } from 'vitest';
import { bearerToken, bearerTokenKind } from '../../../src/security/auth/bearer.js';
import { expectPlexusError } from '../expect-error.js';

const refused = (header: string | undefined, reason: string) => {
  const error = expectPlexusError(() => bearerToken(header), 'UNAUTHORIZED');
  expect(error.details?.reason, error.message).toBe(reason);
  return error;
};

describe('bearerToken', () => {
  it.each([
    ['Bearer abc.def.ghi', 'abc.def.ghi'],
    ['bearer abc.def.ghi', 'abc.def.ghi'],
    ['BEARER   plx_x', 'plx_x'],
    ['  Bearer tok==  ', 'tok=='],
    ['Bearer a-b_c~d+e/f', 'a-b_c~d+e/f'],
  ])('reads %j', (header, token) => {
    expect(bearerToken(header)).toBe(token);
  });

  it('says how to get a token when the header is missing', () => {
    for (const header of [undefined, '', '   ']) {
      expect(refused(header, 'missing').message).toContain('plexus token issue');
    }
  });

  it.each(['Basic dXNlcjpwYXNz', 'Digest x', 'Token abc', 'Basic'])(
    'refuses another scheme: %j',
    (header) => {
      expect(refused(header, 'scheme').message).toMatch(/is not accepted/);
    },
  );

  it.each([
    'Bearer',
    'Bearer ',
    'Bearer    ',
    'Bearer a b',
    'Bearer a,b',
    'Bearer "tok"',
    'Bearer tok=x',
    'Bearer\ttok',
    ':::',
  ])('refuses malformed %j', (header) => {
    refused(header, 'malformed');
  });

  it('refuses an oversized header', () => {
    refused(`Bearer ${'a'.repeat(10_000)}`, 'malformed');
  });
});

describe('bearerTokenKind', () => {
  it.each([
    ['plx_abc', 'api-key'],
    ['a.b.c', 'jwt'],
    ['..', 'jwt'],
    ['a.b', 'unknown'],
    ['a.b.c.d', 'unknown'],
    ['opaque', 'unknown'],
  ] as const)('%s is %s', (token, kind) => {
    expect(bearerTokenKind(token)).toBe(kind);
  });
});
