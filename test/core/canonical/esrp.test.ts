import { LosslessNumber } from 'lossless-json';
import { describe, expect, it } from 'vitest';
import {
  canonicalizeEsrp,
  canonicalizeEsrpText,
  compareUtf8,
  nonIntegerReason,
} from '../../../src/core/canonical/esrp.js';
import { parseJsonLossless } from '../../../src/core/canonical/lossless.js';
import { PlexusError } from '../../../src/core/errors.js';

function errorOf(fn: () => unknown): PlexusError {
  try {
    fn();
  } catch (error) {
    if (error instanceof PlexusError) return error;
    throw error;
  }
  throw new Error('expected a PlexusError');
}

describe('canonicalizeEsrpText', () => {
  it('sorts keys, keeps array order and removes whitespace', () => {
    expect(canonicalizeEsrpText('{ "z": 1,\n "a": [3, 1, 2], "m": {"y": true, "x": null} }')).toBe(
      '{"a":[3,1,2],"m":{"x":null,"y":true},"z":1}',
    );
  });

  it('sorts keys by UTF-8 bytes, not UTF-16 code units', () => {
    // By UTF-16 code units the emoji (0xD83D 0xDE00) sorts before U+FB33; by UTF-8 bytes
    // (code points) U+FB33 comes first.
    expect(
      canonicalizeEsrpText('{"\\ud83d\\ude00":1,"\\ufb33":2,"\\u20ac":3,"\\r":4,"1":5,"\\u00f6":6}'),
    ).toBe('{"\\r":4,"1":5,"\u00f6":6,"\u20ac":3,"\ufb33":2,"\ud83d\ude00":1}');
  });

  it.each([
    ['56.0', 'has a fraction part'],
    ['0.7', 'has a fraction part'],
    ['1e3', 'is written with an exponent'],
    ['1E+3', 'is written with an exponent'],
    ['-2.5e-1', 'is written with an exponent'],
    ['-0', 'negative zero'],
  ])('rejects the number %s judged on its source text', (text, reason) => {
    const error = errorOf(() => canonicalizeEsrpText(`{"params":{"list":[1,${text}]}}`));
    expect(error.code).toBe('INVALID_PARAMS');
    expect(error.details).toEqual({ pointer: '/params/list/1' });
    expect(error.message).toContain(reason);
    expect(error.message).toContain('/params/list/1');
  });

  it('keeps integers beyond 2^53 exact', () => {
    expect(canonicalizeEsrpText('{"big":123456789012345678901234567890,"neg":-9007199254740993}')).toBe(
      '{"big":123456789012345678901234567890,"neg":-9007199254740993}',
    );
  });

  it('escapes U+007F–U+009F and writes \\b \\f as \\u0008 \\u000c', () => {
    expect(canonicalizeEsrpText('"\\b\\f\\n\\r\\t\\u0000\\u001F\\u007f\\u0080\\u009f\\u00a0\\"\\\\/"')).toBe(
      '"\\u0008\\u000c\\n\\r\\t\\u0000\\u001f\\u007f\\u0080\\u009f\u00a0\\"\\\\/"',
    );
  });

  it('writes non-ASCII text as UTF-8, not escapes', () => {
    expect(canonicalizeEsrpText('{"greeting":"Hello \\u4e16\\u754c \\ud83c\\udf0d \\u2028"}')).toBe(
      '{"greeting":"Hello 世界 🌍 \u2028"}',
    );
  });

  it('rejects a lone surrogate', () => {
    expect(errorOf(() => canonicalizeEsrpText('{"a":"\\ud800"}')).details).toEqual({ pointer: '/a' });
  });

  it('reports malformed JSON as PARSE_ERROR with line and column', () => {
    const error = errorOf(() => canonicalizeEsrpText('{\n  "a": 1,\n  "b": }'));
    expect(error.code).toBe('PARSE_ERROR');
    expect(error.details).toMatchObject({ line: 3 });
    expect(errorOf(() => canonicalizeEsrpText('  ')).code).toBe('PARSE_ERROR');
  });

  it('rejects a key repeated with a different value', () => {
    expect(errorOf(() => canonicalizeEsrpText('{"a":1,"a":2}')).code).toBe('PARSE_ERROR');
  });
});

describe('canonicalizeEsrp', () => {
  it('accepts numbers, bigints and LosslessNumbers', () => {
    expect(canonicalizeEsrp({ a: 1, b: 2n ** 70n, c: new LosslessNumber('42'), d: -0 })).toBe(
      '{"a":1,"b":1180591620717411303424,"c":42,"d":0}',
    );
  });

  it('rejects non-integer and unsafe-integer numbers with their pointer', () => {
    expect(errorOf(() => canonicalizeEsrp({ t: 0.7 })).details).toEqual({ pointer: '/t' });
    expect(errorOf(() => canonicalizeEsrp({ t: 2 ** 60 })).message).toContain('bigint');
    expect(errorOf(() => canonicalizeEsrp({ t: new LosslessNumber('1.0') })).message).toContain('fraction');
    expect(errorOf(() => canonicalizeEsrp([Number.NaN])).details).toEqual({ pointer: '/0' });
  });

  it('escapes pointer tokens', () => {
    expect(errorOf(() => canonicalizeEsrp({ 'a/b': { 'c~d': 1.5 } })).details).toEqual({
      pointer: '/a~1b/c~0d',
    });
  });

  it('rejects values that are not JSON', () => {
    expect(() => canonicalizeEsrp({ d: new Date(0) })).toThrow(PlexusError);
    expect(() => canonicalizeEsrp([undefined])).toThrow(PlexusError);
    expect(() => canonicalizeEsrp(() => 1)).toThrow(PlexusError);
  });

  it('agrees with the text form on a lossless parse', () => {
    const text = '{"b":[1,{"y":"\\u0008","x":99999999999999999999}],"a":"é"}';
    expect(canonicalizeEsrp(parseJsonLossless(text))).toBe(canonicalizeEsrpText(text));
  });
});

describe('compareUtf8', () => {
  it('orders by code point', () => {
    const keys = ['\ud83d\ude00', '\ufb33', 'a', '', 'ab', '\u00e9'];
    expect(keys.sort(compareUtf8)).toEqual(['', 'a', 'ab', '\u00e9', '\ufb33', '\ud83d\ude00']);
  });
});

describe('nonIntegerReason', () => {
  it('accepts integer text and explains everything else', () => {
    expect(nonIntegerReason('0')).toBeUndefined();
    expect(nonIntegerReason('-12')).toBeUndefined();
    expect(nonIntegerReason('1.0')).toBe('has a fraction part');
    expect(nonIntegerReason('1e0')).toBe('is written with an exponent');
  });
});

describe('canonicalizeEsrp key order (Perf-P6-003)', () => {
  it('writes the same text whether the keys come in UTF-16 order, UTF-8 order or neither', () => {
    // U+FF61 sorts before U+1F600 in UTF-8 (code point) order, after it in UTF-16 order.
    const utf8 = { a: 1, '\uff61': 2, '\ud83d\ude00': 3 };
    const utf16 = { '\ud83d\ude00': 3, a: 1, '\uff61': 2 };
    const mixed = { '\uff61': 2, '\ud83d\ude00': 3, a: 1 };
    const expected = '{"a":1,"\uff61":2,"\ud83d\ude00":3}';
    expect(canonicalizeEsrp(utf8)).toBe(expected);
    expect(canonicalizeEsrp(utf16)).toBe(expected);
    expect(canonicalizeEsrp(mixed)).toBe(expected);
  });

  it('names the place of a refusal found deep in an already ordered value', () => {
    const value = { a: [{ b: 1 }, { c: { d: 2.5 } }] };
    expect(errorOf(() => canonicalizeEsrp(value)).details).toEqual({ pointer: '/a/1/c/d' });
  });
});
