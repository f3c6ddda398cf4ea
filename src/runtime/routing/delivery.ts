/**
 * What every hop of the router shares: the request as it leaves this node (a child span, the
 * routing extensions it consumed removed) and which failures count as failures to deliver.
 */
import type { Envelope } from '../../core/envelope.js';
import type { PlexusError } from '../../core/errors.js';
import { TARGET_EXTENSION } from './target.js';
import { asChildSpan } from './trace.js';

/** The extension marking a request queued for sync (its delivery job). */
export const SYNC_EXTENSION = '_x_plexus_sync';

/** True when `request` is the request of a delivery job (queued for sync). */
export function isSyncDelivery(request: Envelope): boolean {
  return request.extensions?.[SYNC_EXTENSION] !== undefined;
}

/** The request as it leaves this node: a child span, the consumed routing extensions removed. */
export function outgoing(envelope: Envelope, to: string): Envelope {
  const out: { -readonly [K in keyof Envelope]: Envelope[K] } = { ...asChildSpan(envelope, envelope), to };
  delete out.signature;
  if (out.extensions !== undefined) {
    out.extensions = Object.fromEntries(
      Object.entries(out.extensions).filter(([key]) => key !== TARGET_EXTENSION && key !== SYNC_EXTENSION),
    );
  }
  return out;
}

/** `signal.aborted`, read afresh (it changes across awaits). */
export function isAborted(signal: AbortSignal): boolean {
  return signal.aborted;
}

/** True when `error` is a failure to deliver (retryable, not a cancellation). */
export function isDeliveryFailure(error: PlexusError, signal: AbortSignal): boolean {
  return !signal.aborted && error.retryable && error.code !== 'CANCELLED';
}
