/**
 * UUID reading as the ESRP reference does it (the Rust `uuid` crate): the hyphenated,
 * simple (32 hex digits), braced (`{…}`) and URN (`urn:uuid:…`) forms are accepted in any
 * letter case, and the UUID is always written hyphenated in lower case.
 */

const HYPHENATED = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
const SIMPLE = /^[0-9a-fA-F]{32}$/;

/**
 * Returns the lower-case hyphenated form of the UUID `text`, or `undefined` when `text` is
 * not a UUID in one of the accepted forms.
 *
 * @example normalizeUuid('550E8400E29B41D4A716446655440000') // '550e8400-e29b-41d4-a716-446655440000'
 */
export function normalizeUuid(text: string): string | undefined {
  let body = text;
  if (body.startsWith('urn:uuid:')) body = body.slice(9);
  else if (body.startsWith('{') && body.endsWith('}')) body = body.slice(1, -1);
  if (HYPHENATED.test(body)) return body.toLowerCase();
  if (body === text && SIMPLE.test(body)) {
    const h = body.toLowerCase();
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
  }
  return undefined;
}

/** True when `text` is already a lower-case hyphenated UUID. */
export function isCanonicalUuid(text: string): boolean {
  return HYPHENATED.test(text) && text === text.toLowerCase();
}
