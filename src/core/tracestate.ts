/**
 * W3C Trace Context `tracestate` values (W3C Trace Context §3.3): a comma-separated list of
 * `key=value` members carried beside a `traceparent` (OBS-45). A value is kept only when it is
 * well formed and within the bounds W3C sets (32 members, 512 characters kept); anything else
 * is dropped — never an error.
 */

/** The most list members kept (W3C: a tracestate carries at most 32). */
export const MAX_TRACESTATE_MEMBERS = 32;
/** The most characters kept (W3C: a system should propagate at least 512). */
export const MAX_TRACESTATE_LENGTH = 512;

/** One list member: a simple or multi-tenant key, `=`, a value of printable ASCII without `,` and `=`. */
const MEMBER =
  /^(?:[a-z][a-z0-9_\-*/]{0,255}|[a-z0-9][a-z0-9_\-*/]{0,240}@[a-z][a-z0-9_\-*/]{0,13})=[\x20-\x2b\x2d-\x3c\x3e-\x7e]{0,255}[\x21-\x2b\x2d-\x3c\x3e-\x7e]$/;

/** Optional white space around a list member (W3C: spaces and tabs only). */
const OWS = /^[ \t]+|[ \t]+$/g;

/**
 * `value` as a `tracestate` to carry on (its members trimmed, empty members left out), or
 * `undefined` when it is not a string (nor a list of header values), is empty, is longer than
 * {@link MAX_TRACESTATE_LENGTH}, has more than {@link MAX_TRACESTATE_MEMBERS} members, repeats
 * a key or has a malformed member.
 */
export function cleanTracestate(value: unknown): string | undefined {
  const text = Array.isArray(value) && value.every((v) => typeof v === 'string') ? value.join(',') : value;
  if (typeof text !== 'string' || text.length > MAX_TRACESTATE_LENGTH) return undefined;
  const members = text
    .split(',')
    .map((m) => m.replace(OWS, ''))
    .filter((m) => m !== '');
  if (members.length === 0 || members.length > MAX_TRACESTATE_MEMBERS) return undefined;
  const keys = new Set<string>();
  for (const member of members) {
    if (!MEMBER.test(member)) return undefined;
    const key = member.slice(0, member.indexOf('='));
    if (keys.has(key)) return undefined;
    keys.add(key);
  }
  return members.join(',');
}
