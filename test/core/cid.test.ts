import { describe, expect, it } from 'vitest';
import { canonicalizeJcs } from '../../src/core/canonical/jcs.js';
import { artifactCid, cidFromSha256Hex, eventCid, isCid, parseCid } from '../../src/core/cid.js';
import { PlexusError } from '../../src/core/errors.js';
import { sha256Hex } from '../../src/core/hash.js';

describe('artifactCid', () => {
  it('is a CIDv1 raw sha2-256 in base32', () => {
    // The well-known CID of the empty byte string with the raw codec.
    expect(artifactCid(new Uint8Array())).toBe('bafkreihdwdcefgh4dqkjv67uzcmw7ojee6xedzdetojuzjevtenxquvyku');
  });

  it('carries the same SHA-256 an ESRP artifact names', () => {
    const bytes = new TextEncoder().encode('hello');
    const cid = artifactCid(bytes);
    expect(parseCid(cid)).toEqual({ cid, codec: 'raw', sha256: sha256Hex(bytes) });
    expect(cidFromSha256Hex(sha256Hex(bytes))).toBe(cid);
  });
});

describe('eventCid', () => {
  it('hashes the jcs form of the event without seq and cid, with the json codec', () => {
    const event = { seq: 7, cid: 'x', type: 'job.started', data: { b: 1, a: 2 }, prev: null };
    const cid = eventCid(event);
    const parsed = parseCid(cid);
    expect(parsed.codec).toBe('json');
    expect(parsed.sha256).toBe(
      sha256Hex(canonicalizeJcs({ type: 'job.started', data: { a: 2, b: 1 }, prev: null })),
    );
    expect(cid.startsWith('bagaaiera')).toBe(true);
  });

  it('does not depend on seq, key order or the old cid', () => {
    const a = eventCid({ seq: 1, type: 't', data: { x: 1, y: 2 } });
    const b = eventCid({ data: { y: 2, x: 1 }, type: 't', seq: 99, cid: 'old' });
    expect(a).toBe(b);
    expect(eventCid({ seq: 1, type: 't', data: { x: 2, y: 2 } })).not.toBe(a);
  });
});

describe('parseCid', () => {
  it('refuses what is not a Plexus cid', () => {
    expect(() => parseCid('hello')).toThrow(PlexusError);
    // CIDv0 (dag-pb, base58btc).
    expect(() => parseCid('QmYwAPJzv5CZsnA625s3Xf2nemtYgPpHdWEz79ojWnPbdG')).toThrow(/CIDv0/);
    // CIDv1 dag-cbor.
    expect(() => parseCid('bafyreihdwdcefgh4dqkjv67uzcmw7ojee6xedzdetojuzjevtenxquvyku')).toThrow(/codec/);
    expect(() => cidFromSha256Hex('abc')).toThrow(PlexusError);
    expect(isCid('nope')).toBe(false);
    expect(isCid(artifactCid(new Uint8Array([1])))).toBe(true);
  });
});
