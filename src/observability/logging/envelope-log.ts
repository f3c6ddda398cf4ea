/**
 * The log line of one envelope a node sends to or receives from a peer (seed 004 Req 12.1),
 * written at `debug`: `event` (`envelope.sent` / `envelope.received`), `peer`, `id`, `kind`,
 * `verb`, `from`, `to`, `trace_id`, `span_id` and, for an HTTP answer, its `status`. Never the
 * payload.
 */
import type { Envelope } from '../../core/envelope.js';
import type { Logger } from '../../core/logger.js';
import { traceIdsFor } from './trace-ids.js';

/** Which way the envelope went. */
export type EnvelopeDirection = 'sent' | 'received';

/**
 * Logs `envelope` going `direction` to or from `peer` (a URL or a did), with `extra` fields.
 *
 * @example logEnvelope(logger, 'sent', request, 'http://127.0.0.1:3101/v1/peer/invoke');
 */
export function logEnvelope(
  logger: Logger,
  direction: EnvelopeDirection,
  envelope: Pick<Envelope, 'id' | 'kind' | 'verb' | 'from' | 'to' | 'traceparent'>,
  peer: string,
  extra: Readonly<Record<string, string | number | boolean>> = {},
): void {
  if (logger.debug === undefined) return;
  const ids = traceIdsFor(envelope.traceparent);
  logger.debug(
    {
      event: `envelope.${direction}`,
      peer,
      id: envelope.id,
      kind: envelope.kind,
      verb: envelope.verb,
      from: envelope.from,
      to: envelope.to,
      trace_id: ids?.traceId ?? null,
      span_id: ids?.spanId ?? null,
      ...extra,
    },
    `envelope ${direction}`,
  );
}
