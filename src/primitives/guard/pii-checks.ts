/**
 * Check-digit and range rules that turn a pattern match into a finding: the Luhn check of
 * payment card numbers, the ISO 13616 mod-97 check and per-country lengths of IBANs, the
 * issued ranges of US social security numbers and UK national insurance numbers. Pure
 * functions over strings; no I/O.
 */

/**
 * True when `digits` (only 0–9) passes the Luhn (mod 10) check.
 * @example luhnValid('4111111111111111') // true
 */
export function luhnValid(digits: string): boolean {
  if (!/^\d+$/.test(digits)) return false;
  let sum = 0;
  let double = false;
  for (let i = digits.length - 1; i >= 0; i--) {
    let d = digits.charCodeAt(i) - 48;
    if (double) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
    double = !double;
  }
  return sum % 10 === 0;
}

/**
 * The card network whose issuer prefix (IIN) and length `digits` has, or `undefined`.
 * Covers Visa, Mastercard, American Express, Discover, JCB, Diners Club, UnionPay and
 * Maestro, after their published IIN ranges.
 */
export function cardNetwork(digits: string): string | undefined {
  const n = digits.length;
  const p2 = Number(digits.slice(0, 2));
  const p3 = Number(digits.slice(0, 3));
  const p4 = Number(digits.slice(0, 4));
  const p6 = Number(digits.slice(0, 6));
  if (digits.startsWith('4') && (n === 13 || n === 16 || n === 19)) return 'visa';
  if (((p2 >= 51 && p2 <= 55) || (p4 >= 2221 && p4 <= 2720)) && n === 16) return 'mastercard';
  if ((p2 === 34 || p2 === 37) && n === 15) return 'amex';
  if (
    (p4 === 6011 || p2 === 65 || (p3 >= 644 && p3 <= 649) || (p6 >= 622126 && p6 <= 622925)) &&
    n >= 16 &&
    n <= 19
  )
    return 'discover';
  if (p4 >= 3528 && p4 <= 3589 && n >= 16 && n <= 19) return 'jcb';
  if (((p3 >= 300 && p3 <= 305) || p2 === 36 || p2 === 38 || p2 === 39) && n >= 14 && n <= 19)
    return 'diners';
  if (p2 === 62 && n >= 16 && n <= 19) return 'unionpay';
  if ((p2 === 50 || (p2 >= 56 && p2 <= 69)) && n >= 12 && n <= 19) return 'maestro';
  return undefined;
}

/**
 * IBAN lengths by country (ISO 13616 registry, SWIFT, release 2024): a candidate from a
 * country not listed, or of another length, is not an IBAN.
 */
export const IBAN_LENGTHS: Readonly<Record<string, number>> = {
  AD: 24, AE: 23, AL: 28, AT: 20, AZ: 28, BA: 20, BE: 16, BG: 22, BH: 22, BI: 27, BR: 29, BY: 28,
  CH: 21, CR: 22, CY: 28, CZ: 24, DE: 22, DJ: 27, DK: 18, DO: 28, EE: 20, EG: 29, ES: 24, FI: 18,
  FK: 18, FO: 18, FR: 27, GB: 22, GE: 22, GI: 23, GL: 18, GR: 27, GT: 28, HR: 21, HU: 28, IE: 22,
  IL: 23, IQ: 23, IS: 26, IT: 27, JO: 30, KW: 30, KZ: 20, LB: 28, LC: 32, LI: 21, LT: 20, LU: 20,
  LV: 21, LY: 25, MC: 27, MD: 24, ME: 22, MK: 19, MN: 20, MR: 27, MT: 31, MU: 30, NI: 28, NL: 18,
  NO: 15, OM: 23, PK: 24, PL: 28, PS: 29, PT: 25, QA: 29, RO: 24, RS: 22, RU: 33, SA: 24, SC: 31,
  SD: 18, SE: 24, SI: 19, SK: 24, SM: 27, SO: 23, ST: 25, SV: 28, TL: 23, TN: 24, TR: 26, UA: 29,
  VA: 22, VG: 24, XK: 20, YE: 30,
}; // prettier-ignore

/**
 * True when `iban` (upper-case letters and digits, no spaces) has its country's length and
 * passes the ISO 7064 mod-97-10 check (the rearranged number mod 97 is 1).
 * @example ibanValid('DE89370400440532013000') // true
 */
export function ibanValid(iban: string): boolean {
  if (!/^[A-Z]{2}\d{2}[A-Z0-9]+$/.test(iban)) return false;
  if (IBAN_LENGTHS[iban.slice(0, 2)] !== iban.length) return false;
  const rearranged = iban.slice(4) + iban.slice(0, 4);
  let remainder = 0;
  for (const ch of rearranged) {
    const code = ch.charCodeAt(0);
    const value = code >= 65 ? String(code - 55) : ch; // A=10 … Z=35
    for (const digit of value) remainder = (remainder * 10 + (digit.charCodeAt(0) - 48)) % 97;
  }
  return remainder === 1;
}

/** SSNs published in advertising or otherwise known never to belong to a person. */
const SSN_KNOWN_INVALID = new Set(['078051120', '219099999', '123456789']);

/**
 * True when area, group and serial form an SSN the US Social Security Administration can
 * issue: area not 000, 666 or 900–999, group not 00, serial not 0000, and not one of the
 * published sample numbers (078-05-1120, 219-09-9999, 123-45-6789).
 */
export function ssnValid(area: string, group: string, serial: string): boolean {
  if (!/^\d{3}$/.test(area) || !/^\d{2}$/.test(group) || !/^\d{4}$/.test(serial)) return false;
  const a = Number(area);
  if (a === 0 || a === 666 || a >= 900) return false;
  if (group === '00' || serial === '0000') return false;
  return !SSN_KNOWN_INVALID.has(area + group + serial);
}

/** Two-letter NINO prefixes HMRC never allocates. */
const NINO_BAD_PREFIXES = new Set(['BG', 'GB', 'KN', 'NK', 'NT', 'TN', 'ZZ']);

/**
 * True when `prefix` is an allocatable UK national insurance number prefix: first letter
 * not D, F, I, Q, U or V; second not D, F, I, O, Q, U or V; not BG, GB, KN, NK, NT, TN or ZZ.
 */
export function ninoPrefixValid(prefix: string): boolean {
  return /^[A-CEGHJ-PR-TW-Z][A-CEGHJ-NPR-TW-Z]$/.test(prefix) && !NINO_BAD_PREFIXES.has(prefix);
}

/** True when `segment` is base64url text whose decoding is a JSON object (a JOSE header or claims). */
export function isBase64UrlJsonObject(segment: string): boolean {
  if (!/^[A-Za-z0-9_-]+$/.test(segment)) return false;
  try {
    const parsed: unknown = JSON.parse(Buffer.from(segment, 'base64url').toString('utf8'));
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed);
  } catch {
    return false;
  }
}
