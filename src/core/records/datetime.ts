/**
 * RFC 3339 date-times as instants: parse one to nanoseconds since the Unix epoch and
 * compare two, whatever their offsets and fraction lengths. Pure computation, no clock.
 */
import { PlexusError } from '../errors.js';

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

/**
 * The instant `text` names, in nanoseconds since 1970-01-01T00:00:00Z, or `undefined` when
 * `text` is not an RFC 3339 date-time with a time zone. Fractions beyond nanoseconds are
 * truncated; a leap second (`:60`) counts as the first instant of the next minute.
 */
export function dateTimeToEpochNanos(text: string): bigint | undefined {
  const m = RFC3339.exec(text);
  if (!m) return undefined;
  const [, y, mo, d, h, mi, s, frac = '', zone = 'Z'] = m;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  const hour = Number(h);
  const minute = Number(mi);
  const second = Number(s);
  if (month < 1 || month > 12 || hour > 23 || minute > 59 || second > 60) return undefined;
  const daysInMonth = new Date(Date.UTC(2000, month, 0)).getUTCDate();
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  if (day < 1 || day > (month === 2 ? (leap ? 29 : 28) : daysInMonth)) return undefined;
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, second, 0);
  let offsetMinutes = 0;
  if (zone !== 'Z' && zone !== 'z') {
    const sign = zone.startsWith('-') ? -1 : 1;
    const oh = Number(zone.slice(1, 3));
    const om = Number(zone.slice(4, 6));
    if (oh > 23 || om > 59) return undefined;
    offsetMinutes = sign * (oh * 60 + om);
  }
  const ms = date.getTime() - offsetMinutes * 60_000;
  const nanos = frac === '' ? 0n : BigInt(frac.slice(1, 10).padEnd(9, '0'));
  return BigInt(ms) * 1_000_000n + nanos;
}

/** True when `text` is an RFC 3339 date-time with a time zone naming a real calendar instant. */
export function isDateTime(text: unknown): text is string {
  return typeof text === 'string' && dateTimeToEpochNanos(text) !== undefined;
}

/**
 * Compares two RFC 3339 date-times as instants: negative when `a` is earlier, 0 when equal,
 * positive when later.
 *
 * @throws PlexusError `INVALID_PARAMS` when either is not an RFC 3339 date-time.
 */
export function compareDateTimes(a: string, b: string): number {
  const x = dateTimeToEpochNanos(a);
  const y = dateTimeToEpochNanos(b);
  if (x === undefined || y === undefined) {
    throw new PlexusError(
      'INVALID_PARAMS',
      `"${x === undefined ? a : b}" is not an RFC 3339 date-time with a time zone`,
    );
  }
  return x < y ? -1 : x > y ? 1 : 0;
}
