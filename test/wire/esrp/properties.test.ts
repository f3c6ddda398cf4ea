import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalizeEsrp } from '../../../src/core/canonical/esrp.js';
import { parseEsrpRequest, validateEsrpRequest } from '../../../src/core/esrp/request.js';
import { parseEsrpResponse, validateEsrpResponse } from '../../../src/core/esrp/response.js';
import { esrpRequestCodec, esrpResponseCodec } from '../../../src/wire/esrp/index.js';
import { esrpRequest, esrpResponse } from './arbitraries.js';

describe('esrp-request codec (properties)', () => {
  it('accepts every generated request', () => {
    fc.assert(
      fc.property(esrpRequest, (wire) => {
        expect(validateEsrpRequest(wire)).toEqual([]);
        expect(esrpRequestCodec.validate(wire)).toEqual([]);
      }),
      { numRuns: 300 },
    );
  });

  it('encode(decode(r)) is the typed-parsed r, byte for byte in the esrp profile', () => {
    fc.assert(
      fc.property(esrpRequest, (wire) => {
        const back = esrpRequestCodec.encode(esrpRequestCodec.decode(wire));
        expect(canonicalizeEsrp(back)).toBe(canonicalizeEsrp(parseEsrpRequest(wire)));
      }),
      { numRuns: 300 },
    );
  });

  it('decode(encode(e)) is e for every decoded request', () => {
    fc.assert(
      fc.property(esrpRequest, (wire) => {
        const envelope = esrpRequestCodec.decode(wire);
        expect(esrpRequestCodec.decode(esrpRequestCodec.encode(envelope))).toEqual(envelope);
      }),
      { numRuns: 200 },
    );
  });

  it('the typed parse is idempotent and ignores key order', () => {
    fc.assert(
      fc.property(esrpRequest, (wire) => {
        const once = canonicalizeEsrp(parseEsrpRequest(wire));
        expect(canonicalizeEsrp(parseEsrpRequest(JSON.parse(once)))).toBe(once);
        const reversed = Object.fromEntries(Object.entries(wire).reverse());
        expect(canonicalizeEsrp(parseEsrpRequest(reversed))).toBe(once);
      }),
      { numRuns: 200 },
    );
  });
});

describe('esrp-response codec (properties)', () => {
  it('accepts every generated response', () => {
    fc.assert(
      fc.property(esrpResponse, (wire) => {
        expect(validateEsrpResponse(wire)).toEqual([]);
      }),
      { numRuns: 300 },
    );
  });

  it('encode(decode(r)) is the typed-parsed r', () => {
    fc.assert(
      fc.property(esrpResponse, (wire) => {
        const envelope = esrpResponseCodec.decode(wire);
        expect(envelope.kind).toBe(wire['status'] === 'failed' ? 'error' : 'response');
        expect(esrpResponseCodec.encode(envelope)).toEqual(parseEsrpResponse(wire));
      }),
      { numRuns: 300 },
    );
  });

  it('decode(encode(e)) is e for every decoded response', () => {
    fc.assert(
      fc.property(esrpResponse, (wire) => {
        const envelope = esrpResponseCodec.decode(wire);
        expect(esrpResponseCodec.decode(esrpResponseCodec.encode(envelope))).toEqual(envelope);
      }),
      { numRuns: 200 },
    );
  });
});
