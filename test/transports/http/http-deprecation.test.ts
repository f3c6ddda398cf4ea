import { describe, expect, it } from 'vitest';
import { PlexusError } from '../../../src/core/errors.js';
import { deprecationHeaders, retryAfterHeader } from '../../../src/transports/http/http-deprecation.js';

const warning = {
  type: 'deprecation',
  verb: 'a.b@1',
  message: 'a.b@1 is deprecated',
  deprecated_at: '2025-06-01',
} as const;

describe('deprecation headers', () => {
  it('writes RFC 9745 Deprecation, RFC 8594 Sunset and a deprecation Link', () => {
    expect(
      deprecationHeaders([
        { ...warning, sunset_at: '2025-12-01', migration_guide: 'docs/migration/v1-to-v2.md' },
        { ...warning, verb: 'a.b@2', deprecated_at: '2030-01-01' },
      ]),
    ).toEqual({
      deprecation: '@1748736000',
      sunset: 'Mon, 01 Dec 2025 00:00:00 GMT',
      link: '<docs/migration/v1-to-v2.md>; rel="deprecation"',
    });
  });

  it('leaves out what is missing or cannot be a header value', () => {
    expect(deprecationHeaders([])).toEqual({});
    expect(deprecationHeaders([{ ...warning, migration_guide: 'see the <wiki> page' }])).toEqual({
      deprecation: '@1748736000',
    });
    expect(deprecationHeaders([{ ...warning, deprecated_at: 'soon' }])).toEqual({});
  });
});

describe('Retry-After', () => {
  it('is given for retryable errors only, in whole seconds', () => {
    expect(retryAfterHeader(new PlexusError('PEER_UNAVAILABLE', 'x').toData())).toEqual({
      'retry-after': '2',
    });
    expect(
      retryAfterHeader(new PlexusError('RATE_LIMITED', 'x', { hints: { retryAfter: 60 } }).toData()),
    ).toEqual({ 'retry-after': '60' });
    expect(retryAfterHeader(new PlexusError('FORBIDDEN', 'x').toData())).toEqual({});
    expect(retryAfterHeader(new PlexusError('UNAVAILABLE', 'x', { retryable: false }).toData())).toEqual({});
  });
});
