/**
 * Entry points from ESRP JSON text: numbers are judged on their source text (so `56.0` and
 * `1e3` are refused in requests) and big integers stay exact.
 */
import { canonicalizeEsrp } from '../canonical/esrp.js';
import { parseJsonLossless } from '../canonical/lossless.js';
import { isJsonObject } from '../json.js';
import type { EsrpRequest, EsrpResponse } from './model.js';
import { payloadHash } from './payload-hash.js';
import { parseEsrpRequest } from './request.js';
import { parseEsrpResponse } from './response.js';

/**
 * Parses ESRP request JSON text and applies the reference's typed parse.
 *
 * @throws PlexusError `PARSE_ERROR` for text that is not JSON; `INVALID_PARAMS` with
 *   `details.problems` for a missing or mistyped field or a non-integer number.
 */
export function parseEsrpRequestText(text: string): EsrpRequest {
  return parseEsrpRequest(parseJsonLossless(text));
}

/**
 * Parses ESRP response JSON text and applies the reference's typed parse.
 *
 * @throws PlexusError `PARSE_ERROR` or `INVALID_PARAMS` as {@link parseEsrpRequestText}.
 */
export function parseEsrpResponseText(text: string): EsrpResponse {
  return parseEsrpResponse(parseJsonLossless(text));
}

/**
 * The canonical text of the request in ESRP JSON `text`: typed parse, then the `esrp`
 * profile. Reproduces the reference's `fixtures/v1/canonical/*.json` byte for byte.
 *
 * @throws PlexusError as {@link parseEsrpRequestText}.
 */
export function canonicalizeEsrpRequestText(text: string): string {
  return canonicalizeEsrp(parseEsrpRequestText(text));
}

/**
 * The `esrp` canonical text of any JSON document: an ESRP request (an object with
 * `esrp_version` and no `status`) goes through the typed parse first, as the reference's
 * fixtures do; anything else is canonicalised as it is.
 *
 * @throws PlexusError `PARSE_ERROR` for text that is not JSON; `INVALID_PARAMS` for a
 *   non-integer number, a lone surrogate, or an ESRP request the typed parse refuses.
 */
export function canonicalizeEsrpDocumentText(text: string): string {
  const value = parseJsonLossless(text);
  if (isJsonObject(value) && 'esrp_version' in value && !('status' in value)) {
    return canonicalizeEsrp(parseEsrpRequest(value));
  }
  return canonicalizeEsrp(value);
}

/**
 * The payload hash of the request in ESRP JSON `text` (typed parse first).
 *
 * @throws PlexusError as {@link parseEsrpRequestText}.
 */
export function payloadHashText(text: string): string {
  return payloadHash(parseEsrpRequestText(text));
}
