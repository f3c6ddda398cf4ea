/**
 * The A2A protocol version a request asks for (A2A §3.6, docs/decisions/a2a.md A2A-18): the
 * `A2A-Version` header's `Major.Minor`, a patch number ignored (VER-CLIENT-002: patch versions
 * never take part in negotiation); an empty or absent header is `0.3` (VER-SERVER-003).
 */

/** The request header naming the A2A protocol version. */
export const A2A_VERSION_HEADER = 'a2a-version';

/**
 * The `Major.Minor` version of an `A2A-Version` header value: `'0.3'` when it is empty or
 * absent, the trimmed text unchanged when it is not a version number (it is then unsupported).
 * @example requestedA2aVersion('1.0.2') === '1.0'
 */
export function requestedA2aVersion(header: string | readonly string[] | undefined): string {
  if (header === '1.0') return header; // what every v1.0 client sends
  const text = typeof header === 'string' ? header.trim() : '';
  if (text === '') return '0.3';
  const match = /^(\d{1,4})\.(\d{1,4})(?:\.\d{1,4})?$/.exec(text);
  return match === null ? text : `${Number(match[1])}.${Number(match[2])}`;
}
