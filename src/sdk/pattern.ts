/**
 * Name patterns of the SDK's `query` and `subscribe` (seed 002 Epilogue): an exact dotted
 * name (`soul.memory.recall`), a name ending in `.*` meaning "one or more further segments"
 * (`soul.*` matches `soul.memory.recall` but not `soul`), or `*` alone for every name.
 */
import { PlexusError } from '../core/errors.js';
import type { EventFilter } from '../store/event-log.js';

const SEGMENT = /^[a-z][a-z0-9_]*$/;

/** A checked pattern. */
export type NamePattern =
  | { readonly kind: 'all' }
  | { readonly kind: 'exact'; readonly name: string }
  | { readonly kind: 'prefix'; readonly prefix: string };

/**
 * Parses a pattern.
 *
 * @throws PlexusError `INVALID_PARAMS` for an empty pattern, a `*` anywhere but as the whole
 *   last segment, or a segment that is not `[a-z][a-z0-9_]*`.
 */
export function parsePattern(pattern: string): NamePattern {
  if (typeof pattern !== 'string' || pattern === '') {
    throw new PlexusError('INVALID_PARAMS', 'a pattern must be a non-empty string such as "soul.*"');
  }
  if (pattern === '*') return { kind: 'all' };
  const segments = pattern.split('.');
  const wild = segments.at(-1) === '*';
  const named = wild ? segments.slice(0, -1) : segments;
  const badSegment = named.find((s) => !SEGMENT.test(s));
  if (badSegment !== undefined) {
    throw new PlexusError(
      'INVALID_PARAMS',
      `pattern ${JSON.stringify(pattern)} is not a dotted name with an optional trailing ".*" ` +
        `(segment ${JSON.stringify(badSegment)}; "*" may only be the whole last segment)`,
      { details: { pattern } },
    );
  }
  return wild ? { kind: 'prefix', prefix: `${named.join('.')}.` } : { kind: 'exact', name: pattern };
}

/** True when `name` (without `@version`) matches the pattern. */
export function matchesPattern(pattern: NamePattern, name: string): boolean {
  if (pattern.kind === 'all') return true;
  if (pattern.kind === 'exact') return name === pattern.name;
  return name.startsWith(pattern.prefix) && name.length > pattern.prefix.length;
}

/** The event-log filter selecting event types that match the pattern. */
export function eventFilterOf(pattern: NamePattern): EventFilter {
  if (pattern.kind === 'all') return {};
  if (pattern.kind === 'exact') return { type: pattern.name };
  return { typePrefix: pattern.prefix };
}
