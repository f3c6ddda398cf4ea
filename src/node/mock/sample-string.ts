/**
 * Strings for the mock server's value generator: text of a given length, the JSON Schema
 * formats (`uuid`, `date-time`, `date`, `time`, `uri`, `email`, `hostname`, `ipv4`, `ipv6`,
 * `duration`, `json-pointer`, …), base64 content and `pattern`s. Every value is drawn from a
 * {@link SeededRandom}, so the same seed gives the same string; dates fall in 2020–2029 and
 * every host name is under `example.com` (RFC 2606), every address in a documentation range.
 */
import { artifactCid } from '../../core/cid.js';
import { PlexusError } from '../../core/errors.js';
import { samplePattern } from './sample-pattern.js';
import type { SeededRandom } from './seeded-random.js';

/** The words plain text is made of. */
export const MOCK_WORDS = [
  'amber',
  'atlas',
  'birch',
  'calm',
  'cedar',
  'comet',
  'delta',
  'ember',
  'fable',
  'fjord',
  'grove',
  'harbor',
  'iris',
  'juniper',
  'kestrel',
  'lumen',
  'maple',
  'meadow',
  'nova',
  'opal',
  'pebble',
  'quartz',
  'river',
  'sage',
  'tide',
  'umber',
  'vale',
  'willow',
  'zephyr',
] as const;

/** The earliest and latest instants mock dates are drawn from (2020-01-01 … 2029-12-31 UTC). */
export const MOCK_TIME_RANGE = {
  from: Date.UTC(2020, 0, 1),
  to: Date.UTC(2029, 11, 31, 23, 59, 59),
} as const;

/** The length bounds of a string schema, in code points. */
export interface LengthBounds {
  readonly min: number;
  readonly max: number;
}

/** A word, for names in URLs and e-mail addresses. */
function word(random: SeededRandom): string {
  return random.pick(MOCK_WORDS);
}

/**
 * Plain text whose length lies inside `bounds`: whole words separated by spaces, cut inside a
 * word only when the bounds leave no other choice. `short` asks for the shortest text allowed
 * (at least one word when the bounds admit it).
 */
export function sampleText(random: SeededRandom, bounds: LengthBounds, short: boolean): string {
  const lo = Math.max(0, bounds.min);
  const hi = Math.max(lo, bounds.max);
  const base = Math.min(hi, Math.max(lo, 4));
  const target = short ? base : random.int(base, Math.min(hi, base + 20));
  let text = '';
  while (text.length < target) text += (text === '' ? '' : ' ') + word(random);
  if (text.length === target) return text;
  const space = text.lastIndexOf(' ', target);
  if (space >= lo && space > 0) return text.slice(0, space);
  const cut = text.slice(0, target);
  return cut.endsWith(' ') ? `${cut.slice(0, -1)}a` : cut;
}

function uuid(random: SeededRandom): string {
  const b = random.bytes(16);
  b[6] = ((b[6] ?? 0) & 0x0f) | 0x40; // version 4
  b[8] = ((b[8] ?? 0) & 0x3f) | 0x80; // RFC 4122 variant
  const h = Buffer.from(b).toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

function instant(random: SeededRandom): string {
  const seconds = random.int(MOCK_TIME_RANGE.from / 1000, MOCK_TIME_RANGE.to / 1000);
  return new Date(seconds * 1000).toISOString().replace('.000Z', 'Z');
}

function base64(random: SeededRandom, bounds: LengthBounds): string {
  // 4 characters per 3 bytes; pick a byte count whose encoding fits the bounds.
  const maxBytes = Math.floor(Math.min(bounds.max, 4096) / 4) * 3;
  const minBytes = Math.ceil(bounds.min / 4) * 3;
  const bytes = random.int(Math.max(minBytes, Math.min(maxBytes, 3)), Math.min(maxBytes, minBytes + 24));
  return Buffer.from(random.bytes(Math.max(0, bytes))).toString('base64');
}

/** A string in `format`, or `undefined` for a format this generator does not know. */
export function sampleFormat(format: string, random: SeededRandom): string | undefined {
  switch (format) {
    case 'uuid':
      return uuid(random);
    case 'date-time':
      return instant(random);
    case 'date':
      return instant(random).slice(0, 10);
    case 'time':
      return instant(random).slice(11);
    case 'uri':
    case 'iri':
    case 'url':
      return `https://example.com/mock/${word(random)}/${random.hex(8)}`;
    case 'uri-reference':
    case 'iri-reference':
      return `/mock/${word(random)}/${random.hex(8)}`;
    case 'uri-template':
      return `https://example.com/mock/${word(random)}/{id}`;
    case 'email':
    case 'idn-email':
      return `${word(random)}.${random.hex(6)}@example.com`;
    case 'hostname':
    case 'idn-hostname':
      return `${word(random)}-${random.hex(6)}.example.com`;
    case 'ipv4':
      return `192.0.2.${String(random.int(1, 254))}`;
    case 'ipv6':
      return `2001:db8::${random.hex(4)}`;
    case 'duration':
      return `PT${String(random.int(1, 3600))}S`;
    case 'json-pointer':
      return `/${word(random)}/${String(random.int(0, 9))}`;
    case 'relative-json-pointer':
      return `${String(random.int(0, 3))}/${word(random)}`;
    case 'regex':
      return `^${word(random)}$`;
    default:
      return undefined;
  }
}

/**
 * True when `pattern` has no group, no alternation and at most three quantifiers, so running
 * it on a short string is cheap whatever it says.
 */
function isFlatPattern(pattern: string): boolean {
  return !/[()|]/.test(pattern) && (pattern.match(/[*+?{]/g) ?? []).length <= 3;
}

/**
 * A string for a string schema's keywords: `format` (when known), else `contentEncoding:
 * base64`, else `pattern`, else plain text (the shortest allowed when `short`), each inside the
 * length bounds as far as the form allows (the caller validates the result).
 *
 * @throws PlexusError `INVALID_PARAMS` for a `pattern` the generator cannot satisfy.
 */
export function sampleString(
  schema: Readonly<Record<string, unknown>>,
  random: SeededRandom,
  short = false,
): string {
  const min = typeof schema['minLength'] === 'number' ? schema['minLength'] : 0;
  const max = typeof schema['maxLength'] === 'number' ? schema['maxLength'] : min + 64;
  const bounds = { min, max };
  if (typeof schema['format'] === 'string') {
    const formatted = sampleFormat(schema['format'], random);
    if (formatted !== undefined) return formatted;
  }
  if (schema['contentEncoding'] === 'base64') return base64(random, bounds);
  const pattern = schema['pattern'];
  if (typeof pattern === 'string') {
    if (pattern.includes('2-7') && isFlatPattern(pattern)) {
      // A base32 pattern (a content id): prefer a real CIDv1 of random bytes. Only a flat pattern
      // is run (no groups, alternation or more than three quantifiers): the schema is untrusted,
      // and such a pattern cannot backtrack catastrophically on a 60-character id.
      const cid = artifactCid(random.bytes(16));
      try {
        if (new RegExp(pattern, 'u').test(cid) && cid.length >= min && cid.length <= max) return cid;
      } catch {
        // not a valid pattern: samplePattern reports it below
      }
    }
    const text = samplePattern(pattern, random);
    if (text === undefined) {
      throw new PlexusError(
        'INVALID_PARAMS',
        `the mock cannot generate a string matching the pattern ${JSON.stringify(pattern)} (lookarounds, back-references and word boundaries are not supported)`,
        { details: { pattern } },
      );
    }
    return text;
  }
  return sampleText(random, bounds, short);
}
