import canonicalize from 'canonicalize';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalizeJcs } from '../../../src/core/canonical/jcs.js';
import { PlexusError } from '../../../src/core/errors.js';

/** RFC 8785 Appendix B: IEEE 754 bit patterns and their canonical text. */
const RFC8785_NUMBERS: readonly [string, string][] = [
  ['0000000000000000', '0'],
  ['8000000000000000', '0'],
  ['0000000000000001', '5e-324'],
  ['8000000000000001', '-5e-324'],
  ['7fefffffffffffff', '1.7976931348623157e+308'],
  ['ffefffffffffffff', '-1.7976931348623157e+308'],
  ['4340000000000000', '9007199254740992'],
  ['c340000000000000', '-9007199254740992'],
  ['4430000000000000', '295147905179352830000'],
  ['44b52d02c7e14af5', '9.999999999999997e+22'],
  ['44b52d02c7e14af6', '1e+23'],
  ['44b52d02c7e14af7', '1.0000000000000001e+23'],
  ['444b1ae4d6e2ef4e', '999999999999999700000'],
  ['444b1ae4d6e2ef4f', '999999999999999900000'],
  ['444b1ae4d6e2ef50', '1e+21'],
  ['3eb0c6f7a0b5ed8c', '9.999999999999997e-7'],
  ['3eb0c6f7a0b5ed8d', '0.000001'],
  ['41b3de4355555553', '333333333.3333332'],
  ['41b3de4355555554', '333333333.33333325'],
  ['41b3de4355555555', '333333333.3333333'],
  ['41b3de4355555556', '333333333.3333334'],
  ['41b3de4355555557', '333333333.33333343'],
  ['becbf647612f3696', '-0.0000033333333333333333'],
  ['43143ff3c1cb0959', '1424953923781206.2'],
];

function fromBits(hex: string): number {
  const view = new DataView(new ArrayBuffer(8));
  view.setBigUint64(0, BigInt(`0x${hex}`));
  return view.getFloat64(0);
}

function errorOf(fn: () => unknown): PlexusError {
  try {
    fn();
  } catch (error) {
    if (error instanceof PlexusError) return error;
    throw error;
  }
  throw new Error('expected a PlexusError');
}

describe('canonicalizeJcs', () => {
  it.each(RFC8785_NUMBERS)('writes the IEEE 754 value %s as %s (RFC 8785 Appendix B)', (bits, text) => {
    expect(canonicalizeJcs(fromBits(bits))).toBe(text);
    expect(canonicalizeJcs([fromBits(bits)])).toBe(`[${text}]`);
  });

  it.each(['7fffffffffffffff', '7ff0000000000000', 'fff0000000000000'])(
    'rejects the non-finite IEEE 754 value %s (RFC 8785 Appendix B)',
    (bits) => {
      expect(errorOf(() => canonicalizeJcs({ n: fromBits(bits) })).code).toBe('INVALID_PARAMS');
    },
  );

  it('sorts keys by UTF-16 code units (RFC 8785 §3.2.3 example)', () => {
    const input = JSON.parse(
      '{"\\u20ac":"Euro Sign","\\r":"Carriage Return","\\ufb33":"Hebrew Letter Dalet With Dagesh","1":"One",' +
        '"\\ud83d\\ude00":"Emoji: Grinning Face","\\u0080":"Control","\\u00f6":"Latin Small Letter O With Diaeresis"}',
    ) as unknown;
    expect(canonicalizeJcs(input)).toBe(
      '{"\\r":"Carriage Return","1":"One","\u0080":"Control","\u00f6":"Latin Small Letter O With Diaeresis",' +
        '"\u20ac":"Euro Sign","\ud83d\ude00":"Emoji: Grinning Face","\ufb33":"Hebrew Letter Dalet With Dagesh"}',
    );
  });

  it('writes the RFC 8785 §3.2.2 sample with its numbers, string escapes and literals', () => {
    const input = JSON.parse(
      '{"numbers":[333333333.33333329,1E30,4.50,2e-3,0.000000000000000000000000001],' +
        '"string":"\\u20ac$\\u000F\\u000aA\'\\u0042\\u0022\\u005c\\\\\\"\\/","literals":[null,true,false]}',
    ) as unknown;
    expect(canonicalizeJcs(input)).toBe(
      '{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],' +
        '"string":"\u20ac$\\u000f\\nA\'B\\"\\\\\\\\\\"/"}',
    );
  });

  it('escapes control characters with the short forms and lower-case \\u00xx', () => {
    expect(canonicalizeJcs('\b\f\n\r\t\u0000\u001f\u007f')).toBe('"\\b\\f\\n\\r\\t\\u0000\\u001f\u007f"');
  });

  it('keeps surrogate pairs and non-ASCII characters unescaped', () => {
    expect(canonicalizeJcs({ k: '\ud83d\ude00 é \u2028' })).toBe('{"k":"\ud83d\ude00 é \u2028"}');
  });

  it('rejects a lone surrogate in a value and names its JSON pointer', () => {
    const error = errorOf(() => canonicalizeJcs({ a: [{ b: 'x\ud800' }] }));
    expect(error.code).toBe('INVALID_PARAMS');
    expect(error.details).toEqual({ pointer: '/a/0/b' });
    expect(error.message).toContain('lone surrogate');
  });

  it('rejects a lone surrogate in a key, leading or trailing', () => {
    expect(() => canonicalizeJcs({ '\udc00': 1 })).toThrow(PlexusError);
    expect(() => canonicalizeJcs({ 'a\ud83d': 1 })).toThrow(PlexusError);
  });

  it('rejects values that are not JSON', () => {
    expect(errorOf(() => canonicalizeJcs({ a: 1n })).details).toEqual({ pointer: '/a' });
    expect(() => canonicalizeJcs([undefined])).toThrow(PlexusError);
    expect(() => canonicalizeJcs({ f: () => 1 })).toThrow(PlexusError);
    expect(() => canonicalizeJcs(Symbol('s'))).toThrow(PlexusError);
    expect(() => canonicalizeJcs({ d: new Date(0) })).toThrow(/plain JSON object/);
    expect(() => canonicalizeJcs(new Map())).toThrow(PlexusError);
    expect(() => canonicalizeJcs(undefined)).toThrow(PlexusError);
  });

  it('skips object properties whose value is undefined', () => {
    expect(canonicalizeJcs({ b: 1, a: undefined, c: { z: undefined } })).toBe('{"b":1,"c":{}}');
  });

  it('orders array-index keys as strings, not numbers', () => {
    expect(canonicalizeJcs({ a: 0, 10: 1, 9: 2, '!': 3 })).toBe('{"!":3,"10":1,"9":2,"a":0}');
    expect(canonicalizeJcs({ x: { 2: 'b', 10: 'a' } })).toBe('{"x":{"10":"a","2":"b"}}');
  });

  it('writes a __proto__ key as an ordinary key', () => {
    const input = JSON.parse('{"b":1,"__proto__":{"x":1},"a":2}') as unknown;
    expect(canonicalizeJcs(input)).toBe('{"__proto__":{"x":1},"a":2,"b":1}');
  });

  it('accepts objects without a prototype', () => {
    const obj = Object.create(null) as Record<string, unknown>;
    obj['b'] = 1;
    obj['a'] = [true];
    expect(canonicalizeJcs(obj)).toBe('{"a":[true],"b":1}');
  });

  it('does not modify its input', () => {
    const input = { z: { y: 1, x: [{ b: 1, a: 2 }] }, a: null };
    const before = JSON.stringify(input);
    canonicalizeJcs(input);
    expect(JSON.stringify(input)).toBe(before);
  });

  it('writes -0 as 0 and keeps sorted input unchanged', () => {
    expect(canonicalizeJcs({ a: -0, b: [1.5, 'x'] })).toBe('{"a":0,"b":[1.5,"x"]}');
  });

  it('agrees with the canonicalize package on generated JSON', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(canonicalizeJcs(value)).toBe(canonicalize(value));
      }),
      { numRuns: 300 },
    );
  });
});
