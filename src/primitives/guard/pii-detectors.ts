/**
 * The detectors behind {@link detectPii}: one per kind of personal data or secret, each a
 * bounded regular expression (no nested unbounded quantifiers, so scanning stays linear in
 * practice) followed by the kind's own validity check (Luhn, mod 97, issued ranges, a JOSE
 * header that decodes). Offsets are UTF-16 code unit indices into the scanned text, the unit
 * of JavaScript's `String.prototype.slice`.
 */
import {
  cardNetwork,
  ibanValid,
  IBAN_LENGTHS,
  isBase64UrlJsonObject,
  luhnValid,
  ninoPrefixValid,
  ssnValid,
} from './pii-checks.js';

/** What a finding is: personal data about a person, or a credential. */
export type PiiCategory = 'pii' | 'secret';

/**
 * Every kind {@link detectPii} reports, with its category. Secrets are reported by the same
 * scan because a leaked credential is as much a privacy failure as a leaked e-mail address.
 */
export const PII_KINDS = {
  email: 'pii',
  phone: 'pii',
  credit_card: 'pii',
  iban: 'pii',
  us_ssn: 'pii',
  uk_nino: 'pii',
  aws_access_key: 'secret',
  aws_secret_key: 'secret',
  github_token: 'secret',
  slack_token: 'secret',
  slack_webhook: 'secret',
  stripe_key: 'secret',
  google_api_key: 'secret',
  api_key: 'secret',
  private_key: 'secret',
  jwt: 'secret',
} as const satisfies Record<string, PiiCategory>;

/** A kind of finding. */
export type PiiKind = keyof typeof PII_KINDS;

/** A raw match of one detector, before overlaps between detectors are resolved. */
export interface RawFinding {
  readonly kind: PiiKind;
  readonly start: number;
  readonly end: number;
}

/** One detector: its kind, its rank when matches overlap (lower wins) and its scan. */
export interface PiiDetector {
  readonly kind: PiiKind;
  readonly rank: number;
  scan(text: string): RawFinding[];
}

/** Every match of `re` (global) in `text`, as [start, end, match]. */
function* matches(re: RegExp, text: string): Generator<RegExpExecArray> {
  re.lastIndex = 0;
  for (let m = re.exec(text); m !== null; m = re.exec(text)) {
    yield m;
    if (m[0].length === 0) re.lastIndex++;
  }
}

/** A detector whose every regex match (optionally accepted by `accept`) is a finding. */
function pattern(
  kind: PiiKind,
  rank: number,
  re: RegExp,
  accept: (m: RegExpExecArray) => boolean = () => true,
): PiiDetector {
  return {
    kind,
    rank,
    scan(text) {
      const out: RawFinding[] = [];
      for (const m of matches(re, text)) {
        if (accept(m)) out.push({ kind, start: m.index, end: m.index + m[0].length });
      }
      return out;
    },
  };
}

const PRIVATE_KEY_BEGIN = /-----BEGIN ((?:[A-Z0-9]{1,20} ){0,4})PRIVATE KEY( BLOCK)?-----/g;

/** PEM / OpenSSH / PGP private key blocks; an unterminated block runs to the end of the text. */
const privateKey: PiiDetector = {
  kind: 'private_key',
  rank: 0,
  scan(text) {
    const out: RawFinding[] = [];
    for (const m of matches(PRIVATE_KEY_BEGIN, text)) {
      const footer = `-----END ${m[1] ?? ''}PRIVATE KEY${m[2] ?? ''}-----`;
      const at = text.indexOf(footer, m.index + m[0].length);
      const end = at === -1 ? text.length : at + footer.length;
      out.push({ kind: 'private_key', start: m.index, end });
      PRIVATE_KEY_BEGIN.lastIndex = end;
    }
    return out;
  },
};

const AWS_SECRET =
  /(?:aws_?secret(?:_?access)?_?key|aws_?secret)["']?\s{0,5}[:=]\s{0,5}["']?([A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])/dgi;

/** An AWS secret access key: 40 characters after an `aws_secret_access_key`-like label. */
const awsSecret: PiiDetector = {
  kind: 'aws_secret_key',
  rank: 1,
  scan(text) {
    const out: RawFinding[] = [];
    for (const m of matches(AWS_SECRET, text)) {
      const span = m.indices?.[1];
      if (span !== undefined) out.push({ kind: 'aws_secret_key', start: span[0], end: span[1] });
    }
    return out;
  },
};

const IBAN_START = /(?<![A-Za-z0-9])([A-Z]{2})\d{2}/g;

/**
 * IBANs, printed compact or in groups separated by single spaces: the country's registered
 * length is read from the start, then the mod-97 check decides.
 */
const iban: PiiDetector = {
  kind: 'iban',
  rank: 3,
  scan(text) {
    const out: RawFinding[] = [];
    for (const m of matches(IBAN_START, text)) {
      const length = IBAN_LENGTHS[m[1] ?? ''];
      if (length === undefined) continue;
      let compact = m[0];
      let i = m.index + m[0].length;
      while (compact.length < length && i < text.length) {
        const ch = text[i] ?? '';
        if (/[A-Z0-9]/.test(ch)) {
          compact += ch;
          i++;
        } else if (ch === ' ' && /[A-Z0-9]/.test(text[i + 1] ?? '')) {
          i++;
        } else break;
      }
      if (compact.length !== length || /[A-Za-z0-9]/.test(text[i] ?? '')) continue;
      if (ibanValid(compact)) {
        out.push({ kind: 'iban', start: m.index, end: i });
        IBAN_START.lastIndex = i;
      }
    }
    return out;
  },
};

const DIGIT_RUN = /(?<![\d.,])\d{1,19}(?:[ -]\d{1,19})*(?![\d]|[.,]\d)/g;

/**
 * Payment card numbers: 12–19 digits, plain or in groups separated by one kind of separator
 * (spaces or dashes), Luhn-valid, with a known network's issuer prefix and length. A run of
 * groups is tried window by window (longest first), so a card number followed or preceded by
 * other numbers is still found; a run of digits without separators must be the whole number.
 */
const card: PiiDetector = {
  kind: 'credit_card',
  rank: 2,
  scan(text) {
    const out: RawFinding[] = [];
    for (const m of matches(DIGIT_RUN, text)) {
      const groups: { start: number; end: number; sep: string }[] = [];
      for (const g of matches(/\d+/g, m[0])) {
        const start = m.index + g.index;
        groups.push({ start, end: start + g[0].length, sep: text[start - 1] ?? '' });
      }
      let i = 0;
      while (i < groups.length) {
        const found = cardWindow(text, groups, i);
        if (found === undefined) i++;
        else {
          out.push({ kind: 'credit_card', start: found.start, end: found.end });
          i = found.next;
        }
      }
    }
    return out;
  },
};

/** The longest card-number window of groups starting at group `i`, and the group after it. */
function cardWindow(
  text: string,
  groups: readonly { start: number; end: number; sep: string }[],
  i: number,
): { start: number; end: number; next: number } | undefined {
  const first = groups[i];
  // Every network's issuer prefix starts with 2–6.
  const lead = first === undefined ? 0 : text.charCodeAt(first.start) - 48;
  if (first === undefined || lead < 2 || lead > 6) return undefined;
  let digits = '';
  let best: { start: number; end: number; next: number } | undefined;
  for (let j = i; j < groups.length; j++) {
    const g = groups[j];
    if (g === undefined) break;
    if (j > i + 1 && g.sep !== groups[i + 1]?.sep) break; // one kind of separator
    digits += text.slice(g.start, g.end);
    if (digits.length > 19) break;
    if (digits.length >= 12 && cardNetwork(digits) !== undefined && luhnValid(digits))
      best = { start: first.start, end: g.end, next: j + 1 };
  }
  return best;
}

/** US social security numbers written with dashes or spaces (AAA-GG-SSSS), in issuable ranges. */
const ssn = pattern('us_ssn', 4, /(?<![\d-])(\d{3})([- ])(\d{2})\2(\d{4})(?![\d]|-\d)/g, (m) =>
  ssnValid(m[1] ?? '', m[3] ?? '', m[4] ?? ''),
);

/** UK national insurance numbers (QQ 12 34 56 C), with an allocatable prefix. */
const nino = pattern(
  'uk_nino',
  4,
  /(?<![A-Za-z0-9])([A-Z]{2}) ?\d{2} ?\d{2} ?\d{2} ?[A-D](?![A-Za-z0-9])/g,
  (m) => ninoPrefixValid(m[1] ?? ''),
);

/**
 * E-mail addresses: a local part of at most 64 characters, labelled domain ending in a
 * letters-only top-level domain.
 */
const email = pattern(
  'email',
  5,
  /(?<![A-Za-z0-9._%+-])[A-Za-z0-9._%+-]{1,64}@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?){0,8}\.[A-Za-z]{2,24}(?![A-Za-z0-9-]|\.[A-Za-z0-9])/g,
  (m) => !m[0].startsWith('.') && !m[0].includes('..'),
);

/**
 * Phone numbers: international (`+` then 8–15 digits, spaces, dots, dashes or parentheses
 * between groups) or North American with separators (`(415) 555-0132`, `415-555-0132`,
 * area code and exchange starting 2–9). Bare digit runs are not reported (too many
 * order numbers and timestamps look like them).
 */
const phone: PiiDetector = {
  kind: 'phone',
  rank: 6,
  scan(text) {
    const out: RawFinding[] = [];
    const international = /(?<![\w+])\+\d(?:[ .()-]{0,2}\d){6,16}(?!\w)/g;
    for (const m of matches(international, text)) {
      const digits = m[0].replace(/\D/g, '').length;
      if (digits >= 8 && digits <= 15)
        out.push({ kind: 'phone', start: m.index, end: m.index + m[0].length });
    }
    const nanp = /(?<![\w+(-])(?:\([2-9]\d{2}\) ?|[2-9]\d{2}([-. ]))[2-9]\d{2}([-. ])\d{4}(?![\w]|-\d)/g;
    for (const m of matches(nanp, text)) {
      if (m[1] !== undefined && m[1] !== m[2]) continue; // 415-555.0132 mixes separators
      out.push({ kind: 'phone', start: m.index, end: m.index + m[0].length });
    }
    return out;
  },
};

/** JSON Web Tokens (JWS compact form) whose header and claims both decode to JSON objects. */
const jwt = pattern(
  'jwt',
  1,
  /(?<![A-Za-z0-9_-])(eyJ[A-Za-z0-9_-]{4,8192})\.(eyJ[A-Za-z0-9_-]{4,65536})\.[A-Za-z0-9_-]{0,8192}(?![A-Za-z0-9_-])/g,
  (m) => isBase64UrlJsonObject(m[1] ?? '') && isBase64UrlJsonObject(m[2] ?? ''),
);

const WORD_END = '(?![A-Za-z0-9_-])';
const WORD_START = '(?<![A-Za-z0-9_-])';

/** Every detector, in rank order. */
export const PII_DETECTORS: readonly PiiDetector[] = [
  privateKey,
  jwt,
  awsSecret,
  pattern(
    'aws_access_key',
    1,
    new RegExp(`${WORD_START}(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AIPA|ANPA|ANVA|APKA|AROA|ASCA)[A-Z0-9]{16}(?![A-Z0-9])`, 'g'),
  ),
  pattern(
    'github_token',
    1,
    new RegExp(`${WORD_START}(?:gh[pousr]_[A-Za-z0-9]{36,251}|github_pat_[A-Za-z0-9_]{22,255})(?![A-Za-z0-9_])`, 'g'),
  ),
  pattern('slack_webhook', 1, /https:\/\/hooks\.slack\.com\/services\/T[A-Z0-9]{6,12}\/B[A-Z0-9]{6,12}\/[A-Za-z0-9]{20,32}/g),
  pattern('slack_token', 1, new RegExp(`${WORD_START}(?:xox[abposr]-[A-Za-z0-9-]{10,250}|xapp-\\d-[A-Za-z0-9-]{10,250})${WORD_END}`, 'g')),
  pattern('stripe_key', 1, new RegExp(`${WORD_START}(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,247}${WORD_END}`, 'g')),
  pattern('google_api_key', 1, new RegExp(`${WORD_START}AIza[0-9A-Za-z_-]{35}${WORD_END}`, 'g')),
  pattern('api_key', 1, new RegExp(`${WORD_START}sk-[A-Za-z0-9_-]{20,250}${WORD_END}`, 'g')),
  card,
  iban,
  ssn,
  nino,
  email,
  phone,
]; // prettier-ignore
