import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compareDateTimes, dateTimeToEpochNanos, isDateTime } from '../../../src/core/records/datetime.js';
import { errorOf } from './helpers.js';

describe('dateTimeToEpochNanos', () => {
  it('reads Z and offsets as the same instant', () => {
    expect(dateTimeToEpochNanos('2025-01-01T00:00:00Z')).toBe(1735689600000000000n);
    expect(dateTimeToEpochNanos('2025-01-01T02:00:00+02:00')).toBe(1735689600000000000n);
    expect(dateTimeToEpochNanos('2024-12-31T23:30:00-00:30')).toBe(1735689600000000000n);
  });

  it('keeps fractions down to nanoseconds', () => {
    expect(dateTimeToEpochNanos('1970-01-01T00:00:00.000000001Z')).toBe(1n);
    expect(dateTimeToEpochNanos('1970-01-01T00:00:00.5z')).toBe(500000000n);
  });

  it('rejects what is not an RFC 3339 date-time', () => {
    for (const s of [
      '2025-01-01',
      '2025-01-01T00:00:00',
      '2025-02-30T00:00:00Z',
      '2025-13-01T00:00:00Z',
      '2025-01-01T24:00:00Z',
      '2025-01-01T00:00:00+25:00',
    ]) {
      expect(dateTimeToEpochNanos(s)).toBeUndefined();
      expect(isDateTime(s)).toBe(false);
    }
    expect(isDateTime('2024-02-29T00:00:00Z')).toBe(true);
    expect(isDateTime('2023-02-29T00:00:00Z')).toBe(false);
    expect(isDateTime(5)).toBe(false);
  });

  it('agrees with Date.parse to the millisecond (property)', () => {
    fc.assert(
      fc.property(fc.date({ min: new Date(0), max: new Date(4102444800000), noInvalidDate: true }), (d) => {
        expect(dateTimeToEpochNanos(d.toISOString())).toBe(BigInt(d.getTime()) * 1_000_000n);
      }),
    );
  });
});

describe('compareDateTimes', () => {
  it('orders instants', () => {
    expect(compareDateTimes('2025-01-01T00:00:00Z', '2025-01-01T00:00:00.001Z')).toBe(-1);
    expect(compareDateTimes('2025-01-01T01:00:00+01:00', '2025-01-01T00:00:00Z')).toBe(0);
    expect(compareDateTimes('2025-01-02T00:00:00Z', '2025-01-01T00:00:00Z')).toBe(1);
  });

  it('throws INVALID_PARAMS naming the bad date-time', () => {
    const err = errorOf(() => compareDateTimes('soon', '2025-01-01T00:00:00Z'));
    expect(err.code).toBe('INVALID_PARAMS');
    expect(err.message).toMatch(/"soon"/);
  });
});
