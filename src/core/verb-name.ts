/**
 * Verb names (DESIGN D6): `namespace.resource.action@version`.
 *
 * - A segment matches `[a-z][a-z0-9_]*` and is at most 64 characters long.
 * - Two segments (`memory.search`, `tts.synthesize`) or three (`atelier.session.start`, the
 *   norm). More than three is an error: AGENTESE verbs are flat (seed 002 §1.2).
 * - `@version` is optional: an integer era `1`…`2^53−1` written without leading zeros, or a
 *   `YYYY-MM` era with a month `01`…`12`.
 * - The verb's own `@version` wins over an envelope's `version`; a different envelope
 *   version is an error ({@link resolveVerbVersion}).
 */
import { PlexusError } from './errors.js';

/** A verb's era: an integer (`1`) or a `YYYY-MM` string (`"2024-12"`). */
export type VerbVersion = number | string;

/** A parsed verb name. */
export interface VerbName {
  /** The verb without `@version`, e.g. `atelier.session.start`. */
  readonly name: string;
  /** The dot-separated segments of `name` (two or three). */
  readonly segments: readonly string[];
  /** The first segment. */
  readonly namespace: string;
  /** The middle segment of a three-segment verb; absent for two segments. */
  readonly resource?: string;
  /** The last segment. */
  readonly action: string;
  /** The era after `@`, when given. */
  readonly version?: VerbVersion;
}

/** The pattern one verb segment matches. */
export const VERB_SEGMENT_PATTERN = /^[a-z][a-z0-9_]*$/;
/** The longest segment allowed. */
export const MAX_VERB_SEGMENT_LENGTH = 64;
/** The fewest and most segments a verb name has. */
export const VERB_SEGMENT_COUNT = { min: 2, max: 3 } as const;

/**
 * A regular expression (string form, for JSON Schema `pattern`) matching verb names with an
 * optional `@version`. Month and leading-zero rules are enforced here too; segment length
 * is checked only by {@link parseVerbName}.
 */
export const VERB_NAME_PATTERN_SOURCE =
  '^[a-z][a-z0-9_]*(\\.[a-z][a-z0-9_]*){1,2}(@([1-9][0-9]*|[0-9]{4}-(0[1-9]|1[0-2])))?$';

const INTEGER_ERA = /^[1-9][0-9]*$/;
const MONTH_ERA = /^([0-9]{4})-([0-9]{2})$/;

/**
 * Why `text` is not a valid era, or `undefined` when it is.
 */
function versionTextProblem(text: string): string | undefined {
  if (text === '')
    return 'the version after "@" is empty; expected an integer era such as 1 or a YYYY-MM era';
  if (INTEGER_ERA.test(text)) {
    return Number.isSafeInteger(Number(text)) ? undefined : `the era ${text} is too large`;
  }
  if (/^[0-9]+$/.test(text)) {
    return text === '0' || /^0+$/.test(text)
      ? 'integer eras start at 1'
      : `the era "${text}" has a leading zero; write ${String(Number(text))}`;
  }
  const m = MONTH_ERA.exec(text);
  if (m) {
    const month = Number(m[2]);
    return month >= 1 && month <= 12 ? undefined : `the month in era "${text}" must be 01 to 12`;
  }
  return `the version "${text}" is neither an integer era (e.g. 1) nor a YYYY-MM era (e.g. 2024-12)`;
}

/**
 * Why `value` is not a valid {@link VerbVersion} value (as found in an envelope's `version`
 * field), or `undefined` when it is. Integer eras must be JSON integers, month eras strings.
 */
export function verbVersionProblem(value: unknown): string | undefined {
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value)) return `the era ${String(value)} is not an integer`;
    return value >= 1 ? undefined : 'integer eras start at 1';
  }
  if (typeof value === 'string') {
    if (INTEGER_ERA.test(value)) {
      return `the era "${value}" is a string; write the integer ${value} without quotes`;
    }
    if (!MONTH_ERA.test(value)) {
      return `the version "${value}" is neither an integer era (e.g. 1) nor a YYYY-MM era (e.g. "2024-12")`;
    }
    return versionTextProblem(value);
  }
  return 'the version must be an integer era (e.g. 1) or a "YYYY-MM" string';
}

/** True when `value` is a valid {@link VerbVersion}. */
export function isVerbVersion(value: unknown): value is VerbVersion {
  return verbVersionProblem(value) === undefined;
}

/**
 * Why `text` is not a valid verb name, or `undefined` when it is. Used by
 * {@link parseVerbName} and by validators that collect problems instead of throwing.
 */
export function verbNameProblem(text: unknown): string | undefined {
  if (typeof text !== 'string') return 'a verb name must be a string';
  if (text === '') return 'the verb name is empty; expected namespace.resource.action[@version]';
  const at = text.indexOf('@');
  const base = at === -1 ? text : text.slice(0, at);
  if (at !== -1) {
    const versionText = text.slice(at + 1);
    if (versionText.includes('@')) return `verb "${text}" has more than one "@"`;
    const vp = versionTextProblem(versionText);
    if (vp !== undefined) return `verb "${text}": ${vp}`;
  }
  const segments = base.split('.');
  if (segments.length < VERB_SEGMENT_COUNT.min) {
    return `verb "${text}" has one segment; expected namespace.resource.action (or namespace.action)`;
  }
  if (segments.length > VERB_SEGMENT_COUNT.max) {
    return `verb "${text}" has ${segments.length} segments; at most three are allowed (namespace.resource.action)`;
  }
  for (const [i, segment] of segments.entries()) {
    if (segment === '') return `verb "${text}" has an empty segment at position ${i + 1}`;
    if (!VERB_SEGMENT_PATTERN.test(segment)) {
      return `verb "${text}": segment "${segment}" must start with a lower-case letter and contain only a-z, 0-9 and _`;
    }
    if (segment.length > MAX_VERB_SEGMENT_LENGTH) {
      return `verb "${text}": segment "${segment.slice(0, 16)}…" is longer than ${MAX_VERB_SEGMENT_LENGTH} characters`;
    }
  }
  return undefined;
}

/** True when `text` is a valid verb name (with or without `@version`). */
export function isVerbName(text: unknown): text is string {
  return verbNameProblem(text) === undefined;
}

/**
 * Parses `namespace.resource.action@version` (D6).
 *
 * @throws PlexusError `INVALID_PARAMS` naming what is wrong (segment, count, version).
 * @example
 * parseVerbName('atelier.session.start@1');
 * // { name: 'atelier.session.start', segments: ['atelier','session','start'],
 * //   namespace: 'atelier', resource: 'session', action: 'start', version: 1 }
 */
export function parseVerbName(text: string): VerbName {
  const problem = verbNameProblem(text);
  if (problem !== undefined) {
    throw new PlexusError('INVALID_PARAMS', problem, { details: { verb: text } });
  }
  const at = text.indexOf('@');
  const name = at === -1 ? text : text.slice(0, at);
  const segments = name.split('.');
  const namespace = segments[0] ?? '';
  const action = segments[segments.length - 1] ?? '';
  const resource = segments.length === 3 ? segments[1] : undefined;
  const base = { name, segments, namespace, action };
  const withResource = resource === undefined ? base : { ...base, resource };
  if (at === -1) return withResource;
  const versionText = text.slice(at + 1);
  const version: VerbVersion = INTEGER_ERA.test(versionText) ? Number(versionText) : versionText;
  return { ...withResource, version };
}

/** The parts {@link formatVerbName} needs: the segments (or the name) and an optional version. */
export interface VerbNameParts {
  /** The segments; takes precedence over `name`. */
  readonly segments?: readonly string[];
  /** The verb without version; used when `segments` is absent. */
  readonly name?: string;
  /** The era to append after `@`. */
  readonly version?: VerbVersion;
}

/**
 * Writes a verb name: segments joined by `.`, then `@version` when given.
 *
 * @throws PlexusError `INVALID_PARAMS` when the result is not a valid verb name.
 */
export function formatVerbName(parts: VerbNameParts): string {
  const name = parts.segments !== undefined ? parts.segments.join('.') : (parts.name ?? '');
  const text = parts.version === undefined ? name : `${name}@${String(parts.version)}`;
  if (parts.version !== undefined) {
    const vp = verbVersionProblem(parts.version);
    if (vp !== undefined) throw new PlexusError('INVALID_PARAMS', `cannot format verb "${name}": ${vp}`);
  }
  const problem = verbNameProblem(text);
  if (problem !== undefined) throw new PlexusError('INVALID_PARAMS', problem, { details: { verb: text } });
  return text;
}

/** The verb name without its `@version` (the text is not otherwise checked). */
export function stripVerbVersion(text: string): string {
  const at = text.indexOf('@');
  return at === -1 ? text : text.slice(0, at);
}

/** True when two eras are the same era (`1` and `1`, `"2024-12"` and `"2024-12"`). */
export function sameVerbVersion(a: VerbVersion, b: VerbVersion): boolean {
  return typeof a === typeof b && a === b;
}

/**
 * Settles the era of an invocation from the verb's own `@version` and the envelope's
 * `version` field (D6): the verb's wins; an envelope version that differs is an error;
 * with no `@version` the envelope's is used; with neither the result is `undefined`.
 *
 * @throws PlexusError `INVALID_PARAMS` when `verb` is not a verb name or `envelopeVersion`
 *   is not a valid era; `INVALID_SEMANTIC` when both are given and differ.
 */
export function resolveVerbVersion(
  verb: string | VerbName,
  envelopeVersion?: unknown,
): VerbVersion | undefined {
  const parsed = typeof verb === 'string' ? parseVerbName(verb) : verb;
  if (envelopeVersion === undefined) return parsed.version;
  const vp = verbVersionProblem(envelopeVersion);
  if (vp !== undefined) {
    throw new PlexusError('INVALID_PARAMS', `envelope version: ${vp}`, { details: { pointer: '/version' } });
  }
  const given = envelopeVersion as VerbVersion;
  if (parsed.version === undefined) return given;
  if (!sameVerbVersion(parsed.version, given)) {
    throw new PlexusError(
      'INVALID_SEMANTIC',
      `the envelope version ${JSON.stringify(given)} differs from the verb's own @${String(parsed.version)}; ` +
        `the verb's version wins, so drop the envelope version or make them equal`,
      {
        details: {
          pointer: '/version',
          verb: parsed.name,
          verbVersion: parsed.version,
          envelopeVersion: given,
        },
      },
    );
  }
  return parsed.version;
}

/**
 * The prefix of a capability selector: an address (`Envelope.to`) meaning "the first agent
 * that offers this verb" (Nova26 Req. 4.3), written `capability:<verb>`.
 */
export const CAPABILITY_SELECTOR_PREFIX = 'capability:';

/** The capability selector addressing whoever offers `verb` (`capability:<verb>`). */
export function capabilitySelector(verb: string): string {
  return `${CAPABILITY_SELECTOR_PREFIX}${verb}`;
}

/**
 * The verb a capability selector names, or `undefined` when `to` is not a selector (or
 * names nothing).
 */
export function parseCapabilitySelector(to: string): string | undefined {
  if (!to.startsWith(CAPABILITY_SELECTOR_PREFIX)) return undefined;
  const verb = to.slice(CAPABILITY_SELECTOR_PREFIX.length);
  return verb === '' ? undefined : verb;
}
