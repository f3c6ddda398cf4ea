/**
 * The HTTP status of each Plexus error code on the HTTP faces (ESRP, discovery, health, the
 * peer route, the WebSocket upgrade refusal), and the Plexus code a status is read as.
 */
import type { PlexusErrorCode } from '../../core/errors.js';
import { EMERGENCE_ERRORS, plexusCodeFromEmergence } from '../../wire/emergence/error-table.js';

/**
 * Every Plexus error code's HTTP status; a code missing here does not compile. It is the
 * Emergence table (D4: an Emergence `ERROR.data.code` is an HTTP-style status) but for
 * `UNKNOWN_VERB`, which Emergence answers 501 and the HTTP faces 404.
 */
export const HTTP_STATUS = {
  ...EMERGENCE_ERRORS,
  UNKNOWN_VERB: 404,
} as const satisfies Record<PlexusErrorCode, number>;

/**
 * The Plexus code an incoming HTTP status is read as. An Emergence `ERROR.data.code` is an
 * HTTP-style status (D4), so both are read by one switch ({@link plexusCodeFromEmergence}):
 * unknown 4xx become `INVALID_REQUEST`, unknown 5xx `UNAVAILABLE` when 502–504 else `INTERNAL`.
 */
export function plexusCodeFromHttp(status: number): PlexusErrorCode {
  return plexusCodeFromEmergence(status);
}
