import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isSha256Hex, sha256Bytes, sha256Hex } from '../../src/core/hash.js';

describe('sha256Hex / sha256Bytes', () => {
  it('matches the FIPS 180-2 test vectors', () => {
    expect(sha256Hex('')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    expect(sha256Hex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(sha256Hex(new TextEncoder().encode('abc'))).toBe(sha256Hex('abc'));
  });

  it('hashes strings as UTF-8 and agrees between hex and bytes', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (s) => {
        const hex = sha256Hex(s);
        expect(hex).toBe(createHash('sha256').update(Buffer.from(s, 'utf8')).digest('hex'));
        expect(Buffer.from(sha256Bytes(s)).toString('hex')).toBe(hex);
        expect(sha256Bytes(s)).toHaveLength(32);
        expect(isSha256Hex(hex)).toBe(true);
      }),
    );
  });

  it('recognises 64 lower-case hex characters only', () => {
    expect(isSha256Hex('A'.repeat(64))).toBe(false);
    expect(isSha256Hex('a'.repeat(63))).toBe(false);
    expect(isSha256Hex(42)).toBe(false);
  });
});
