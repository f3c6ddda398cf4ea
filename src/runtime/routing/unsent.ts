/**
 * A failure to deliver that is known to have left nothing behind: no attempt of the call got
 * the request out of this node (every dial was refused, or the mesh was not running). Such a
 * call can go to another provider of the same capability without running the request twice
 * (the job runner's fail-over, RT-060); one that may have been sent cannot.
 */
import type { PlexusError } from '../../core/errors.js';

/** The `details` key a transport sets to `false` when no attempt sent the request. */
export const SENT_DETAIL = 'sent';

/** True when `error` failed to deliver and says no attempt sent the request. */
export function wasNeverSent(error: PlexusError): boolean {
  return error.code === 'PEER_UNAVAILABLE' && error.details?.[SENT_DETAIL] === false;
}

/**
 * True when `cause` (an error of `fetch` or a socket) is a refused or unresolvable connection:
 * nothing was written to the peer.
 */
export function isRefusedConnection(cause: unknown): boolean {
  for (let at = cause, depth = 0; at !== undefined && at !== null && depth < 4; depth++) {
    const code = (at as { code?: unknown }).code;
    if (code === 'ECONNREFUSED' || code === 'ENOTFOUND' || code === 'EHOSTUNREACH' || code === 'ENETUNREACH')
      return true;
    at = (at as { cause?: unknown }).cause;
  }
  return false;
}
