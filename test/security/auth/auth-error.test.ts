import { describe, expect, it } from 'vitest';
import { PlexusError } from '../../../src/core/errors.js';
import { authError, authFailureReason, bearerChallenge } from '../../../src/security/auth/auth-error.js';
import { HTTP_STATUS } from '../../../src/transports/http/http-status.js';

describe('authError', () => {
  it('is UNAUTHORIZED (HTTP 401) with the reason in details', () => {
    const error = authError('expired', 'token expired at …');
    expect(error.code).toBe('UNAUTHORIZED');
    expect(HTTP_STATUS[error.code]).toBe(401);
    expect(error.toData()).toEqual({
      code: 'UNAUTHORIZED',
      message: 'token expired at …',
      retryable: false,
      details: { reason: 'expired' },
    });
    expect(authFailureReason(error)).toBe('expired');
  });

  it('reads no reason from other errors', () => {
    expect(authFailureReason(new PlexusError('FORBIDDEN', 'no'))).toBeUndefined();
    expect(authFailureReason(new Error('x'))).toBeUndefined();
    expect(
      authFailureReason(new PlexusError('UNAUTHORIZED', 'x', { details: { reason: 'made-up' } })),
    ).toBeUndefined();
  });
});

describe('bearerChallenge', () => {
  it('has no error code when no bearer credential was sent', () => {
    expect(bearerChallenge(authError('missing', 'no credentials'))).toBe('Bearer realm="plexus"');
    expect(bearerChallenge(authError('scheme', 'Basic'))).toBe('Bearer realm="plexus"');
    expect(bearerChallenge()).toBe('Bearer realm="plexus"');
  });

  it('says invalid_token with a safely quoted description otherwise', () => {
    expect(bearerChallenge(authError('signature', 'issuer "did:key:z" \\ bad…'), 'node')).toBe(
      `Bearer realm="node", error="invalid_token", error_description="issuer 'did:key:z' ' bad..."`,
    );
  });
});
