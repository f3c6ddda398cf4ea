import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  base64UrlLength,
  base64UrlProblem,
  fromBase64Url,
  toBase64Url,
} from '../../src/security/base64url.js';
import { expectPlexusError } from './expect-error.js';

describe('base64url', () => {
  it('round-trips every byte string of the signed-envelope lengths', () => {
    for (const length of [16, 32, 64]) {
      fc.assert(
        fc.property(fc.uint8Array({ minLength: length, maxLength: length }), (bytes) => {
          const text = toBase64Url(bytes);
          expect(text).toHaveLength(base64UrlLength(length));
          expect(base64UrlProblem(text, length)).toBeUndefined();
          expect(new Uint8Array(fromBase64Url(text, length, 'x'))).toEqual(bytes);
        }),
        { numRuns: 50 },
      );
    }
  });

  it('gives the unpadded lengths 22, 43 and 86 for 16, 32 and 64 bytes', () => {
    expect([16, 32, 64].map(base64UrlLength)).toEqual([22, 43, 86]);
  });

  it('rejects padding, wrong lengths and characters outside the url alphabet', () => {
    const good = toBase64Url(new Uint8Array(16).fill(255));
    expect(base64UrlProblem(good + '==', 16)).toMatch(/22 base64url characters/);
    expect(base64UrlProblem(good.slice(1), 16)).toMatch(/22 base64url characters/);
    expect(base64UrlProblem(good.slice(0, 20) + '+/', 16)).toMatch(/outside the base64url alphabet/);
    expect(base64UrlProblem(good.slice(0, 21) + 'é', 16)).toMatch(/outside the base64url alphabet/);
  });

  it('rejects a non-canonical last character (unused bits set)', () => {
    // 16 zero bytes are "AAAAAAAAAAAAAAAAAAAAAA"; "AAAAAAAAAAAAAAAAAAAAAB" decodes to the same bytes.
    expect(toBase64Url(new Uint8Array(16))).toBe('A'.repeat(22));
    expect(Buffer.from('A'.repeat(21) + 'B', 'base64url')).toEqual(Buffer.alloc(16));
    expect(base64UrlProblem('A'.repeat(21) + 'B', 16)).toMatch(/not canonical/);
    expect(base64UrlProblem('A'.repeat(42) + 'B', 32)).toMatch(/not canonical/);
    expect(base64UrlProblem('A'.repeat(42) + 'E', 32)).toBeUndefined();
  });

  it('accepts only the canonical spelling of each byte string', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 16, maxLength: 16 }),
        fc.integer({ min: 0, max: 63 }),
        (bytes, c) => {
          const text = toBase64Url(bytes);
          const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
          const other = text.slice(0, -1) + alphabet[c]!;
          if (other !== text && Buffer.from(other, 'base64url').equals(Buffer.from(bytes))) {
            expect(base64UrlProblem(other, 16)).toBeDefined();
          }
        },
      ),
    );
  });

  it('throws the requested code naming the field', () => {
    const error = expectPlexusError(
      () => fromBase64Url('!!', 16, 'nonce', 'MALFORMED_ENVELOPE'),
      'MALFORMED_ENVELOPE',
    );
    expect(error.message).toMatch(/^nonce /);
    expect(error.details).toEqual({ field: 'nonce' });
    expectPlexusError(() => fromBase64Url(12, 16, 'nonce'), 'INVALID_PARAMS');
  });
});
