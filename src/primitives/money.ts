/**
 * Money at the Hyperspace face (D12). The seed writes amounts as decimal numbers of a
 * currency unit (`"estimatedCost": 0.02`); every ledger in Plexus holds integer micro-units
 * (1 unit = 1,000,000 micro-units). Amounts are converted once, at the boundary, exactly:
 * the number's shortest decimal text (what JSON carried) may have at most six decimals, so
 * `0.02` is 20,000 micro-units with no rounding, and `0.0000001` is refused rather than
 * silently rounded. Answers convert back for the face with {@link fromMicros}.
 */
import { PlexusError } from '../core/errors.js';

/** Micro-units in one unit. */
export const MICROS_PER_UNIT = 1_000_000;

/**
 * The largest amount accepted, in units: 999,999,999.999999 has 15 significant digits, the
 * most a double carries exactly through JSON (any decimal of at most 15 significant digits
 * survives text → double → shortest text unchanged). Above 10^9 units a double no longer
 * tells neighbouring micro-units apart, so `9000000000.000001` would silently become another
 * amount.
 */
export const MAX_AMOUNT_UNITS = 999_999_999;

const DECIMAL = /^(\d+)(?:\.(\d+))?$/;

/** Options of {@link toMicros}. */
export interface ToMicrosOptions {
  /** Accept 0. @default true */
  readonly allowZero?: boolean;
}

/**
 * Converts an amount in units to integer micro-units, exactly.
 *
 * @param field the parameter name, for the error (`estimatedCost`).
 * @throws PlexusError `INVALID_PARAMS` with `details.field` (and `details.problems` with the
 *   pointer `/<field>`) when the value is not a finite number, is negative, is zero and zero
 *   is not allowed, has more than six decimals, or is 10^9 units or more.
 * @example toMicros(0.02, 'estimatedCost') // 20000
 */
export function toMicros(value: unknown, field: string, options: ToMicrosOptions = {}): number {
  const bad = (why: string): PlexusError =>
    new PlexusError('INVALID_PARAMS', `${field} ${why}`, {
      details: { field, value: String(value), problems: [{ pointer: `/${field}`, message: why }] },
    });
  if (typeof value !== 'number' || !Number.isFinite(value)) throw bad('must be a number');
  if (value < 0) throw bad('must not be negative');
  if (value === 0 && options.allowZero === false) throw bad('must be greater than 0');
  if (value >= MAX_AMOUNT_UNITS + 1) throw bad(`must be less than ${MAX_AMOUNT_UNITS + 1}`);
  const text = String(value);
  const m = DECIMAL.exec(text);
  if (m === null) {
    // Exponent forms: 1e-7 and smaller are below a micro-unit; large values were refused above.
    throw bad('has more than 6 decimal places (amounts are held in whole micro-units)');
  }
  const whole = m[1] ?? '0';
  const fraction = m[2] ?? '';
  if (fraction.length > 6)
    throw bad('has more than 6 decimal places (amounts are held in whole micro-units)');
  return Number(whole) * MICROS_PER_UNIT + Number(fraction.padEnd(6, '0'));
}

/** Converts micro-units to units for an answer (`20000` → `0.02`). */
export function fromMicros(micros: number): number {
  return micros / MICROS_PER_UNIT;
}

/** Formats micro-units as a money string for messages (`120000` → `$0.12`). */
export function formatMicros(micros: number): string {
  const sign = micros < 0 ? '-' : '';
  const abs = Math.abs(micros);
  const whole = Math.floor(abs / MICROS_PER_UNIT);
  const fraction = String(abs % MICROS_PER_UNIT)
    .padStart(6, '0')
    .replace(/0+$/, '');
  return `${sign}$${whole}.${fraction.length < 2 ? fraction.padEnd(2, '0') : fraction}`;
}
