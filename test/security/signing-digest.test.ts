import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  MAX_DOMAIN_BYTES,
  domainPrefix,
  envelopeDigest,
  payloadDigest,
  rpcDomain,
  signingBytes,
  signingDigest,
} from '../../src/security/signing-digest.js';
import { expectPlexusError } from './expect-error.js';

const sha256 = (data: string | Uint8Array): Buffer => createHash('sha256').update(data).digest();

/** The D3 preimage, built here byte by byte and independently of the code under test. */
function referencePreimage(
  domain: string,
  ts: number,
  nonce: Uint8Array,
  from: string,
  dHash: Uint8Array,
): Buffer {
  const uvarint = (n: number): number[] => {
    const out: number[] = [];
    while (n >= 0x80) {
      out.push((n % 128) | 0x80);
      n = Math.floor(n / 128);
    }
    out.push(n);
    return out;
  };
  const dom = Buffer.from(domain, 'utf8');
  const fr = Buffer.from(from, 'utf8');
  const tsBytes = Buffer.alloc(8);
  tsBytes.writeBigUInt64BE(BigInt(ts));
  return Buffer.concat([
    Buffer.from(uvarint(dom.length)),
    dom,
    tsBytes,
    Buffer.from(uvarint(nonce.length)),
    nonce,
    Buffer.from(uvarint(fr.length)),
    fr,
    dHash,
  ]);
}

const NONCE = new Uint8Array(Array.from({ length: 16 }, (_, i) => i));
const FROM = 'did:key:z6MktwupdmLXVVqTzCw4i46r4uGyosGXRnR3XjN4Zq7oMMsw';

describe('payloadDigest', () => {
  it('is SHA-256 of the RFC 8785 form, independent of key order', () => {
    expect(Buffer.from(payloadDigest({ b: 1, a: [true, null, 'x'] }))).toEqual(
      sha256('{"a":[true,null,"x"],"b":1}'),
    );
    expect(payloadDigest({ a: [true, null, 'x'], b: 1 })).toEqual(
      payloadDigest({ b: 1, a: [true, null, 'x'] }),
    );
  });

  it('rejects values that are not I-JSON', () => {
    expectPlexusError(() => payloadDigest({ x: Number.NaN }), 'INVALID_PARAMS');
    expectPlexusError(() => payloadDigest('\ud800'), 'INVALID_PARAMS');
  });
});

describe('signingBytes', () => {
  it('lays out domain, ts, nonce, from and the payload hash as D3 says', () => {
    const dHash = payloadDigest({ hello: 'mesh' });
    const input = {
      domain: 'hyperspace/tasks/web-research',
      ts: 1735689600000,
      nonce: NONCE,
      from: FROM,
      payloadDigest: dHash,
    };
    const bytes = signingBytes(input);
    expect(bytes).toEqual(referencePreimage(input.domain, input.ts, NONCE, FROM, dHash));
    expect(bytes[0]).toBe(29);
    expect(bytes.subarray(30, 38).toString('hex')).toBe('000001941f297c00');
    expect(Buffer.from(signingDigest(input))).toEqual(sha256(bytes));
  });

  it('matches the reference for arbitrary domains (multi-byte varints, non-ASCII), ts and from', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'grapheme', minLength: 1, maxLength: 300 }),
        fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }),
        fc.uint8Array({ minLength: 16, maxLength: 16 }),
        fc.string({ minLength: 1, maxLength: 200 }),
        fc.uint8Array({ minLength: 32, maxLength: 32 }),
        (domain, ts, nonce, from, dHash) => {
          fc.pre(Buffer.byteLength(domain) <= MAX_DOMAIN_BYTES);
          const bytes = signingBytes({ domain, ts, nonce, from, payloadDigest: dHash });
          expect(bytes).toEqual(referencePreimage(domain, ts, nonce, from, dHash));
        },
      ),
    );
  });

  it('has a fast path (envelopeDigest, nonce as text) that gives the same digest', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'grapheme', minLength: 1, maxLength: 300 }),
        fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }),
        fc.uint8Array({ minLength: 16, maxLength: 16 }),
        fc.string({ unit: 'grapheme', minLength: 1, maxLength: 256 }),
        fc.uint8Array({ minLength: 32, maxLength: 32 }),
        (domain, ts, nonce, from, dHash) => {
          fc.pre(Buffer.byteLength(domain) <= MAX_DOMAIN_BYTES && from.length <= 256);
          const nonceText = Buffer.from(nonce).toString('base64url');
          expect(envelopeDigest(domain, ts, nonceText, from, dHash)).toEqual(
            signingDigest({ domain, ts, nonce, from, payloadDigest: dHash }),
          );
        },
      ),
    );
  });

  it('writes a 200-byte domain length as the two-byte varint c8 01', () => {
    const domain = 'd'.repeat(200);
    expect(domainPrefix(domain).subarray(0, 2).toString('hex')).toBe('c801');
  });

  it('separates domains: the same envelope fields under two topics give two digests', () => {
    const base = { ts: 1, nonce: NONCE, from: FROM, payloadDigest: new Uint8Array(32) };
    expect(signingDigest({ ...base, domain: 'hyperspace/tasks/a' })).not.toEqual(
      signingDigest({ ...base, domain: 'hyperspace/tasks/b' }),
    );
  });

  it('rejects an empty, too long or ill-formed domain', () => {
    const base = { ts: 1, nonce: NONCE, from: FROM, payloadDigest: new Uint8Array(32) };
    expectPlexusError(() => signingBytes({ ...base, domain: '' }), 'INVALID_PARAMS');
    expectPlexusError(
      () => signingBytes({ ...base, domain: 'x'.repeat(MAX_DOMAIN_BYTES + 1) }),
      'INVALID_PARAMS',
    );
    expectPlexusError(() => signingBytes({ ...base, domain: 'topic\udc00' }), 'INVALID_PARAMS');
  });

  it('rejects a ts that is negative, fractional or beyond 2^53', () => {
    const base = { domain: 't', nonce: NONCE, from: FROM, payloadDigest: new Uint8Array(32) };
    for (const ts of [-1, 1.5, 2 ** 53, Number.NaN]) {
      expectPlexusError(() => signingBytes({ ...base, ts }), 'INVALID_PARAMS');
    }
  });

  it('rejects a payload digest that is not 32 bytes', () => {
    expectPlexusError(
      () => signingBytes({ domain: 't', ts: 0, nonce: NONCE, from: FROM, payloadDigest: new Uint8Array(31) }),
      'INVALID_PARAMS',
    );
  });
});

describe('rpcDomain', () => {
  it('prefixes the verb with plexus/rpc/', () => {
    expect(rpcDomain('memory.search')).toBe('plexus/rpc/memory.search');
    expect(rpcDomain('soul.memory.read@2')).toBe('plexus/rpc/soul.memory.read@2');
  });

  it('rejects an empty verb or one with whitespace', () => {
    expectPlexusError(() => rpcDomain(''), 'INVALID_PARAMS');
    expectPlexusError(() => rpcDomain('memory search'), 'INVALID_PARAMS');
  });
});
