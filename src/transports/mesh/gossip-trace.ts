/**
 * W3C trace context on gossip (issue 16 item 1, docs/decisions/observability.md OBS-17): a node
 * that traces publishes each capability change (`delta`, `full`) in a PRODUCER span and puts
 * the span's `traceparent` in the signed message (`d.traceparent`); a receiving node that
 * traces applies the message in a CONSUMER span under it, so the registry change on every
 * peer is part of the publisher's trace. Heartbeats (the same cards again, every few seconds)
 * are not traced: one trace per heartbeat per peer would drown the changes. A missing or
 * malformed `traceparent` in a received message starts a new trace; it is never an error.
 * Span names and attributes follow the OpenTelemetry messaging conventions.
 */
import type { JsonObject, JsonValue } from '../../core/json.js';
import type { Observer, ObserverSpan } from '../../runtime/observer.js';
import { traceparentOfMeta } from '../trace-headers.js';

/** `messaging.system` of Plexus gossip: libp2p gossipsub. */
export const GOSSIP_MESSAGING_SYSTEM = 'gossipsub';

/** A message kind that is traced (its payload's `kind`): every one but the heartbeat. */
function traced(payload: JsonValue): payload is JsonObject {
  return (
    typeof payload === 'object' &&
    payload !== null &&
    !Array.isArray(payload) &&
    payload['kind'] !== 'heartbeat'
  );
}

/** A publication in progress: the payload to sign (with the span's trace) and its span. */
export interface TracedPublication {
  readonly payload: JsonValue;
  readonly span: ObserverSpan | undefined;
}

/**
 * Starts the PRODUCER span of publishing `payload` on `topic` and returns the payload carrying
 * its `traceparent`. Without a tracer, or for a heartbeat, the payload as it is and no span.
 */
export function tracedPublication(
  tracing: Observer | undefined,
  topic: string,
  payload: JsonValue,
): TracedPublication {
  if (tracing === undefined || !traced(payload)) return { payload, span: undefined };
  const span = tracing.span(
    `publish ${topic}`,
    {
      'messaging.system': GOSSIP_MESSAGING_SYSTEM,
      'messaging.operation.type': 'publish',
      'messaging.operation.name': 'publish',
      'messaging.destination.name': topic,
    },
    { kind: 'producer' },
  );
  const traceparent = span.traceparent;
  return { payload: traceparent === undefined ? payload : { ...payload, traceparent }, span };
}

/**
 * The CONSUMER span of applying `payload`, received on `topic` from `from`, under the span its
 * `traceparent` names (a new trace without a valid one); `undefined` without a tracer or for a
 * heartbeat.
 */
export function receivedSpan(
  tracing: Observer | undefined,
  topic: string,
  from: string,
  payload: JsonValue,
  bytes: number,
): ObserverSpan | undefined {
  if (tracing === undefined || !traced(payload)) return undefined;
  const parent = traceparentOfMeta(payload);
  return tracing.span(
    `process ${topic}`,
    {
      'messaging.system': GOSSIP_MESSAGING_SYSTEM,
      'messaging.operation.type': 'process',
      'messaging.operation.name': 'process',
      'messaging.destination.name': topic,
      'messaging.message.body.size': bytes,
      'messaging.client.id': from,
    },
    { kind: 'consumer', ...(parent === undefined ? {} : { parent }) },
  );
}
