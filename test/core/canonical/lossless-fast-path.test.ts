import fc from 'fast-check';
import { LosslessNumber, parse } from 'lossless-json';
import { describe, expect, it } from 'vitest';
import { parseJsonLossless } from '../../../src/core/canonical/lossless.js';

// parseJsonLossless takes JSON.parse for texts whose numbers are all small integers and
// lossless-json otherwise. Whichever path it takes, the result must be what lossless-json
// gives: the same structure, every number a LosslessNumber with the same source text.
function plain(value: unknown): unknown {
  if (value instanceof LosslessNumber) return { n: value.value };
  if (Array.isArray(value)) return value.map(plain);
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, plain(v)]));
  }
  return value;
}

function outcome(run: () => unknown): unknown {
  try {
    return { ok: plain(run()) };
  } catch {
    return { error: true };
  }
}

const smallInts = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.integer({ min: -1e15 + 1, max: 1e15 - 1 }),
    fc.string(),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(fc.string({ maxLength: 6 }), tie('value'), { maxKeys: 4 }),
  ),
})).value;

describe('parseJsonLossless fast path', () => {
  it('agrees with lossless-json on texts with only small integers', () => {
    fc.assert(
      fc.property(smallInts, fc.constantFrom(0, 2), (value, indent) => {
        const text = JSON.stringify(value, null, indent);
        expect(outcome(() => parseJsonLossless(text))).toEqual(outcome(() => parse(text)));
      }),
    );
  });

  it('agrees with lossless-json on arbitrary JSON, floats and big numbers included', () => {
    fc.assert(
      fc.property(fc.json(), (text) => {
        expect(outcome(() => parseJsonLossless(text))).toEqual(outcome(() => parse(text)));
      }),
    );
  });

  it('keeps the source text of numbers the native parser would change, and the duplicate-key rule', () => {
    const big = parseJsonLossless('{"a":12345678901234567890,"b":1.50,"c":-0,"d":1e3}') as Record<
      string,
      LosslessNumber
    >;
    expect([big.a!.value, big.b!.value, big.c!.value, big.d!.value]).toEqual([
      '12345678901234567890',
      '1.50',
      '-0',
      '1e3',
    ]);
    expect(() => parseJsonLossless('{"a":1,"a":2}')).toThrow();
    expect(outcome(() => parseJsonLossless('{"a":1,"a":1}'))).toEqual(outcome(() => parse('{"a":1,"a":1}')));
    expect(outcome(() => parseJsonLossless('{"__proto__":{"x":1}}'))).toEqual(
      outcome(() => parse('{"__proto__":{"x":1}}')),
    );
  });
});
