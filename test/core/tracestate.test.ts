/**
 * `cleanTracestate` (OBS-45): a W3C `tracestate` is kept when well formed and within W3C's
 * bounds (32 members, 512 characters), normalised (members trimmed, empty ones left out), and
 * dropped — `undefined`, never an exception — otherwise. Properties run from the suite's seed.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_TRACESTATE_LENGTH, MAX_TRACESTATE_MEMBERS, cleanTracestate } from '../../src/core/tracestate.js';

const key = fc.stringMatching(/^[a-z][a-z0-9_\-*/]{0,8}$/);
const value = fc.stringMatching(/^[\x21-\x2b\x2d-\x3c\x3e-\x7e]{1,12}$/);
const members = fc.uniqueArray(fc.tuple(key, value), {
  minLength: 1,
  maxLength: MAX_TRACESTATE_MEMBERS,
  selector: ([k]) => k,
});

describe('cleanTracestate', () => {
  it('keeps well-formed values, including multi-tenant keys, trimmed', () => {
    expect(cleanTracestate('vendor=abc,other@tenant=x1')).toBe('vendor=abc,other@tenant=x1');
    expect(cleanTracestate(' a=1 ,, b=2 ')).toBe('a=1,b=2');
    expect(cleanTracestate(['a=1', 'b=2'])).toBe('a=1,b=2'); // two header lines are one list
    expect(cleanTracestate('0tenant@sys=v')).toBe('0tenant@sys=v');
  });

  it('drops what is malformed or too large, never throwing', () => {
    for (const bad of [
      undefined,
      null,
      42,
      {},
      '',
      ' , ',
      'BAD=1',
      'a b=1',
      'a=',
      'a=1,a=2',
      'a=x=y',
      'a=1\n',
      'a=ü',
      '0digit=1',
      Array.from({ length: MAX_TRACESTATE_MEMBERS + 1 }, (_, i) => `k${String(i)}=v`).join(','),
      `a=${'v'.repeat(MAX_TRACESTATE_LENGTH)}`,
      ['a=1', 7],
    ]) {
      expect(cleanTracestate(bad), JSON.stringify(bad)).toBeUndefined();
    }
  });

  it('keeps every well-formed list within the bounds as it is, and cleaning is idempotent', () => {
    fc.assert(
      fc.property(members, (list) => {
        const text = list.map(([k, v]) => `${k}=${v}`).join(',');
        const clean = cleanTracestate(text);
        if (text.length > MAX_TRACESTATE_LENGTH) expect(clean).toBeUndefined();
        else expect(clean).toBe(text);
        if (clean !== undefined) expect(cleanTracestate(clean)).toBe(clean);
      }),
    );
  });

  it('never throws and never returns more than the bounds allow, whatever the input', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ maxLength: 700 }), fc.anything()), (input) => {
        const clean = cleanTracestate(input);
        if (clean === undefined) return;
        expect(clean.length).toBeLessThanOrEqual(MAX_TRACESTATE_LENGTH);
        expect(clean.split(',').length).toBeLessThanOrEqual(MAX_TRACESTATE_MEMBERS);
        expect(clean).not.toMatch(/[\r\n]/);
      }),
    );
  });
});
