/**
 * Personal data and secret detection and redaction (seed 003 §1.3 "PII redaction", §9.3).
 *
 * {@link detectPii} reports e-mail addresses, phone numbers, payment card numbers (Luhn and
 * network prefix checked), IBANs (mod-97 checked), US social security numbers and UK national
 * insurance numbers (issued ranges only), and credentials: AWS keys, GitHub, Slack, Stripe and
 * Google tokens, generic `sk-…` API keys, private key blocks and JWTs. Each finding has its
 * kind and its span as UTF-16 code unit offsets (`text.slice(start, end)` is the match).
 * When detectors overlap, credentials win over personal data, then the longer match.
 */
import type { JsonValue } from '../../core/json.js';
import {
  PII_DETECTORS,
  PII_KINDS,
  type PiiCategory,
  type PiiKind,
  type RawFinding,
} from './pii-detectors.js';

export { PII_KINDS, type PiiCategory, type PiiKind } from './pii-detectors.js';

/** One piece of personal data or one secret found in a text. */
export interface PiiFinding {
  /** What was found (`email`, `credit_card`, `github_token`, … see {@link PII_KINDS}). */
  readonly kind: string;
  /** Offset of the first UTF-16 code unit of the match. */
  readonly start: number;
  /** Offset just after the match (`text.slice(start, end)` is `text`). */
  readonly end: number;
  /** The matched text. */
  readonly text: string;
}

const RANK = new Map<PiiKind, number>(PII_DETECTORS.map((d) => [d.kind, d.rank]));

/** Keeps the best of overlapping findings: lower rank, then longer, then earlier. */
function resolveOverlaps(found: RawFinding[]): RawFinding[] {
  found.sort(
    (a, b) =>
      (RANK.get(a.kind) ?? 99) - (RANK.get(b.kind) ?? 99) ||
      b.end - b.start - (a.end - a.start) ||
      a.start - b.start,
  );
  // `kept` stays sorted by start and free of overlaps, so one neighbour on each side decides.
  const kept: RawFinding[] = [];
  for (const f of found) {
    if (f.end <= f.start) continue;
    let lo = 0;
    let hi = kept.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((kept[mid]?.start ?? 0) < f.start) lo = mid + 1;
      else hi = mid;
    }
    const before = kept[lo - 1];
    const after = kept[lo];
    if (before !== undefined && before.end > f.start) continue;
    if (after !== undefined && after.start < f.end) continue;
    kept.splice(lo, 0, f);
  }
  return kept;
}

/**
 * Finds personal data and secrets in `text`, in order of position, without overlaps.
 *
 * @example
 * detectPii('mail ada@example.org')
 * // [{ kind: 'email', start: 5, end: 20, text: 'ada@example.org' }]
 */
export function detectPii(text: string): readonly PiiFinding[] {
  if (text.length === 0) return [];
  const raw: RawFinding[] = [];
  for (const detector of PII_DETECTORS) raw.push(...detector.scan(text));
  return resolveOverlaps(raw).map((f) => ({
    kind: f.kind,
    start: f.start,
    end: f.end,
    text: text.slice(f.start, f.end),
  }));
}

/** The category of a kind reported by {@link detectPii} (`pii` or `secret`). */
export function piiCategory(kind: string): PiiCategory | undefined {
  return Object.hasOwn(PII_KINDS, kind) ? PII_KINDS[kind as PiiKind] : undefined;
}

/** Replaces the given findings of `text` (sorted, not overlapping) by `[REDACTED:<kind>]`. */
export function redactFindings(text: string, findings: readonly PiiFinding[]): string {
  if (findings.length === 0) return text;
  let out = '';
  let at = 0;
  for (const f of findings) {
    out += `${text.slice(at, f.start)}[REDACTED:${f.kind}]`;
    at = f.end;
  }
  return out + text.slice(at);
}

/**
 * `text` with every finding of {@link detectPii} replaced by `[REDACTED:<kind>]`.
 *
 * @example redactPii('call +44 20 7946 0958') // 'call [REDACTED:phone]'
 */
export function redactPii(text: string): string {
  return redactFindings(text, detectPii(text));
}

/**
 * A copy of `value` in which every string (array items and object member values, at any
 * depth) is redacted with {@link redactPii}. Object keys, numbers, booleans and null are
 * kept as they are; the input is not changed.
 */
export function redactPiiDeep(value: JsonValue): JsonValue {
  if (typeof value === 'string') return redactPii(value);
  if (Array.isArray(value)) return value.map(redactPiiDeep);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, JsonValue> = {};
    for (const [key, item] of Object.entries(value)) {
      Object.defineProperty(out, key, {
        value: redactPiiDeep(item),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return out;
  }
  return value;
}
