import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PlexusError } from '../../../src/core/errors.js';
import { MAX_AMOUNT_UNITS, formatMicros, fromMicros, toMicros } from '../../../src/primitives/money.js';

function refusal(run: () => unknown): PlexusError {
  try {
    run();
  } catch (error) {
    if (error instanceof PlexusError) return error;
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('money', () => {
  it('converts decimal units to micro-units exactly', () => {
    expect(toMicros(0.02, 'estimatedCost')).toBe(20_000);
    expect(toMicros(1, 'x')).toBe(1_000_000);
    expect(toMicros(0.1, 'x') + toMicros(0.2, 'x')).toBe(toMicros(0.3, 'x'));
    expect(toMicros(0.000001, 'x')).toBe(1);
    expect(toMicros(0, 'x')).toBe(0);
    expect(toMicros(MAX_AMOUNT_UNITS + 0.999999, 'x')).toBe(999_999_999_999_999);
  });

  it('refuses what is not an exact amount, naming the field', () => {
    for (const value of [-0.01, Number.NaN, Infinity, '1', null, 0.0000001, 1.1234567, 1e9, 1e21]) {
      const error = refusal(() => toMicros(value, 'amount'));
      expect(error.code, String(value)).toBe('INVALID_PARAMS');
      expect(error.message.startsWith('amount ')).toBe(true);
      expect(error.details).toMatchObject({ field: 'amount', problems: [{ pointer: '/amount' }] });
    }
    expect(refusal(() => toMicros(0, 'amount', { allowZero: false })).message).toContain('greater than 0');
  });

  it('converts back for answers and formats for messages', () => {
    expect(fromMicros(20_000)).toBe(0.02);
    expect(fromMicros(880_000)).toBe(0.88);
    expect(formatMicros(5_000_000)).toBe('$5.00');
    expect(formatMicros(120_000)).toBe('$0.12');
    expect(formatMicros(1)).toBe('$0.000001');
    expect(formatMicros(1_500_000)).toBe('$1.50');
    expect(formatMicros(-250_000)).toBe('-$0.25');
    expect(formatMicros(0)).toBe('$0.00');
  });

  it('round-trips every micro-unit amount through a JSON number (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 999_999_999_999_999 }), (micros) => {
        const units = JSON.parse(JSON.stringify(fromMicros(micros))) as number;
        expect(toMicros(units, 'amount')).toBe(micros);
      }),
      { numRuns: 2000 },
    );
  });

  it('formats the same amount that the decimal text carried (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 999_999_999 }),
        fc.integer({ min: 0, max: 999_999 }),
        (whole, fraction) => {
          const micros = whole * 1_000_000 + fraction;
          const text = formatMicros(micros);
          const [w, f] = text.slice(1).split('.');
          expect(Number(w)).toBe(whole);
          expect(Number((f ?? '').padEnd(6, '0'))).toBe(fraction);
        },
      ),
    );
  });
});
