/**
 * RFC 3339 timestamps as the ESRP reference reads and writes them (`chrono::DateTime<Utc>`):
 * any offset is accepted and converted to UTC, the fraction is kept to the nanosecond, and
 * the time is written with `Z` and 0, 3, 6 or 9 fraction digits (the fewest that hold it).
 */

const RFC3339 =
  /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;

/**
 * Returns `text` converted to UTC and written as the reference writes it, or `undefined`
 * when `text` is not an RFC 3339 date-time (or its UTC year is outside 0000–9999).
 *
 * Fraction digits beyond the ninth are dropped; leap seconds (`:60`) are not accepted.
 *
 * @example normalizeTimestamp('2025-01-01T01:00:05.500+01:00') // '2025-01-01T00:00:05.500Z'
 */
export function normalizeTimestamp(text: string): string | undefined {
  const m = RFC3339.exec(text);
  if (m === null) return undefined;
  const year = Number(m[1]);
  const month = Number(m[2]);
  const day = Number(m[3]);
  const hour = Number(m[4]);
  const minute = Number(m[5]);
  const second = Number(m[6]);
  const fraction = (m[7] ?? '').slice(0, 9).padEnd(9, '0');
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return undefined;
  if (hour > 23 || minute > 59 || second > 59) return undefined;
  let offsetMinutes = 0;
  if (m[9] !== undefined) {
    const oh = Number(m[10]);
    const om = Number(m[11]);
    if (oh > 23 || om > 59) return undefined;
    offsetMinutes = (m[9] === '-' ? -1 : 1) * (oh * 60 + om);
  }
  let minutes = daysFromCivil(year, month, day) * 1440 + hour * 60 + minute - offsetMinutes;
  const dayNumber = Math.floor(minutes / 1440);
  minutes -= dayNumber * 1440;
  const date = civilFromDays(dayNumber);
  if (date.year < 0 || date.year > 9999) return undefined;
  const nanos = Number(fraction);
  let frac = '';
  if (nanos !== 0) {
    if (nanos % 1_000_000 === 0) frac = '.' + fraction.slice(0, 3);
    else if (nanos % 1_000 === 0) frac = '.' + fraction.slice(0, 6);
    else frac = '.' + fraction;
  }
  return (
    `${pad(date.year, 4)}-${pad(date.month, 2)}-${pad(date.day, 2)}` +
    `T${pad(Math.floor(minutes / 60), 2)}:${pad(minutes % 60, 2)}:${pad(second, 2)}${frac}Z`
  );
}

/** Unix milliseconds of an RFC 3339 timestamp (fraction below a millisecond dropped), or `undefined`. */
export function timestampToMillis(text: string): number | undefined {
  const utc = normalizeTimestamp(text);
  if (utc === undefined) return undefined;
  const ms = Date.parse(utc.length > 24 ? utc.slice(0, 23) + 'Z' : utc);
  return Number.isNaN(ms) ? undefined : ms;
}

function pad(n: number, width: number): string {
  return String(n).padStart(width, '0');
}

function isLeap(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return isLeap(year) ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

/** Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's algorithm). */
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

function civilFromDays(days: number): { year: number; month: number; day: number } {
  const z = days + 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor(
    (doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365,
  );
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  return { year: yoe + era * 400 + (month <= 2 ? 1 : 0), month, day };
}
