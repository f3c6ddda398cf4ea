import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeJsonText, scanJsonText } from '../../src/core/bounded-json.js';
import { canonicalizeJcs } from '../../src/core/canonical/jcs.js';
import { PlexusError } from '../../src/core/errors.js';
import {
  assertRecordable,
  isRecordable,
  MAX_JSON_DEPTH,
  recordableProblem,
} from '../../src/core/recordable.js';

const nest = (n: number): string => '['.repeat(n) + ']'.repeat(n);

function refusal(run: () => unknown): PlexusError {
  try {
    run();
  } catch (error) {
    if (error instanceof PlexusError) return error;
    throw error;
  }
  throw new Error('not refused');
}

describe('scanJsonText', () => {
  it('accepts 256 levels and refuses the 257th bracket, naming where', () => {
    expect(scanJsonText(nest(MAX_JSON_DEPTH)).suspect).toBe(false);
    const error = refusal(() => scanJsonText(nest(MAX_JSON_DEPTH + 1)));
    expect(error.code).toBe('INVALID_REQUEST');
    expect(error.retryable).toBe(false);
    expect(error.details).toEqual({ limit: 256, line: 1, column: 257 });
  });

  it('refuses a million levels without recursion', () => {
    expect(refusal(() => scanJsonText(nest(1_000_000))).code).toBe('INVALID_REQUEST');
  });

  it('does not count brackets inside strings, past escaped quotes', () => {
    const text = `{"a":"${'['.repeat(400)}\\"${'{'.repeat(400)}","b":[1]}`;
    expect(scanJsonText(text).suspect).toBe(false);
    expect(decodeJsonText(text)).toMatchObject({ b: [1] });
  });

  it('takes objects and arrays alike, and a custom limit', () => {
    expect(() => scanJsonText('{"a":{"b":[{}]}}', { maxDepth: 4 })).not.toThrow();
    expect(refusal(() => scanJsonText('{"a":{"b":[{}]}}', { maxDepth: 3 })).details).toMatchObject({
      column: 12,
    });
  });

  it('refuses text over maxBytes, counting UTF-8 bytes', () => {
    expect(() => scanJsonText('"ééé"', { maxBytes: 8 })).not.toThrow();
    const error = refusal(() => scanJsonText('"éééé"', { maxBytes: 8 }));
    expect(error.code).toBe('INPUT_TOO_LARGE');
    expect(error.details).toEqual({ limitBytes: 8, size: 10 });
  });

  it('flags what may not be recordable, and only that', () => {
    expect(scanJsonText('{"a":"😀","b":[1,-2,true,false,null]}').suspect).toBe(false);
    expect(scanJsonText('"\\ud83d\\ude00"').suspect).toBe(true); // an escaped pair: walked, then accepted
    expect(scanJsonText('[1e3]').suspect).toBe(true);
    expect(scanJsonText(`[${'9'.repeat(301)}]`).suspect).toBe(true);
    expect(scanJsonText('"a\ud800"').suspect).toBe(true);
  });
});

describe('decodeJsonText', () => {
  it('parses JSON, and keeps PARSE_ERROR with line and column for broken text', () => {
    expect(decodeJsonText('{"a":[1,2]}')).toEqual({ a: [1, 2] });
    expect(decodeJsonText('"\\ud83d\\ude00"')).toBe('😀');
    const error = refusal(() => decodeJsonText('{\n"a":', { what: 'the body' }));
    expect(error.code).toBe('PARSE_ERROR');
    expect(error.message).toMatch(/^the body is not valid JSON at line 2/);
  });

  it.each([
    ['a lone high surrogate in a string', '{"a":["x\\ud800"]}', '/a/0'],
    ['a lone low surrogate in a key', '{"k\\udc00":1}', '/k\udc00'],
    ['a raw lone surrogate', '["\ud800"]', '/0'],
    ['a number beyond a double', '{"n":1e999}', '/n'],
    ['a 400-digit integer', `[${'9'.repeat(400)}]`, '/0'],
  ])('refuses %s with INVALID_PARAMS and its pointer', (_name, text, pointer) => {
    const error = refusal(() => decodeJsonText(text));
    expect(error.code).toBe('INVALID_PARAMS');
    expect(error.retryable).toBe(false);
    expect(error.details).toEqual({ pointer });
  });

  it('leaves the recordable check to the caller when asked', () => {
    expect(decodeJsonText('["\\ud800"]', { recordable: false })).toEqual(['\ud800']);
  });

  it('reads numbers losslessly for ESRP (1e999 is then a source text, not Infinity)', () => {
    const value = decodeJsonText('{"n":1e999}', { lossless: true }) as { n: { value: string } };
    expect(value.n.value).toBe('1e999');
  });

  it('takes lossless numbers as numbers only for a value from the lossless parser', () => {
    const value = decodeJsonText('{"n":12,"s":"x\\ud83d\\ude00"}', { lossless: true });
    expect(isRecordable(value)).toBe(false); // the log records plain numbers, not LosslessNumbers
    const error = refusal(() => decodeJsonText('{"n":12,"s":"\\ud800"}', { lossless: true }));
    expect(error.details).toEqual({ pointer: '/s' });
  });

  it('accepts exactly what the event log can record (property, seeded)', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 6 }), (value) => {
        const text = JSON.stringify(value);
        let canonical = true;
        try {
          canonicalizeJcs(JSON.parse(text));
        } catch {
          canonical = false;
        }
        let decoded = true;
        try {
          decodeJsonText(text);
        } catch {
          decoded = false;
        }
        expect(decoded).toBe(canonical);
      }),
      { seed: 1105, numRuns: 300 },
    );
  });

  it('refuses every string with a lone surrogate, accepts every well-formed one (property, seeded)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 12 }), (s) => {
        const text = JSON.stringify({ [s]: s });
        const lone = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(s);
        if (lone) expect(refusal(() => decodeJsonText(text)).code).toBe('INVALID_PARAMS');
        else expect(decodeJsonText(text)).toEqual({ [s]: s });
      }),
      { seed: 1105, numRuns: 100 },
    );
  });
});

describe('recordable values', () => {
  it('checks depth before recursing, on values built in memory', () => {
    let deep: unknown = 1;
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(isRecordable(deep)).toBe(false);
    expect(recordableProblem(deep)?.message).toMatch(/nests deeper than 256 levels/);
  });

  it('refuses what JSON would change, with a pointer', () => {
    expect(isRecordable({ a: [1, 'x', null, true, { b: 2 }] })).toBe(true);
    expect(recordableProblem({ a: [Number.NaN] })?.pointer).toBe('/a/0');
    expect(recordableProblem({ d: new Date(0) })?.pointer).toBe('/d');
    expect(recordableProblem({ b: 1n })?.message).toMatch(/bigint, not JSON/);
    expect(() => {
      assertRecordable({ x: 'a\udfff' }, { code: 'INVALID_REQUEST', pointer: '/data' });
    }).toThrow(expect.objectContaining({ code: 'INVALID_REQUEST', details: { pointer: '/data/x' } }));
  });
});
