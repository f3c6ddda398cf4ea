import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { cidFromSha256Hex, eventCid, parseCid } from '../../src/core/cid.js';
import { canonicalizeJcs } from '../../src/core/canonical/jcs.js';
import { sha256Hex } from '../../src/core/hash.js';
import { eventCidFromCanonical } from '../../src/store/event-cid.js';

describe('eventCidFromCanonical', () => {
  it('equals the core cid of the same bytes for any text', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (text) => {
        expect(eventCidFromCanonical(text)).toBe(cidFromSha256Hex(sha256Hex(text), 'json'));
      }),
    );
  });

  it('equals the core eventCid of an event body and parses as a json-codec CIDv1', () => {
    const body = {
      prev: null,
      type: 'a.b',
      data: { z: 1, a: [true, 'ü'] },
      time: '2026-01-01T00:00:00.000Z',
    };
    const cid = eventCidFromCanonical(canonicalizeJcs(body));
    expect(cid).toBe(eventCid(body));
    expect(parseCid(cid)).toMatchObject({ codec: 'json', sha256: sha256Hex(canonicalizeJcs(body)) });
  });
});
