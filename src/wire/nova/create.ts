/**
 * Creating Nova envelopes (Req. 2.2): a fresh unique id and the current time, from
 * injectable sources so tests and replays are deterministic.
 */
import { randomUUID } from 'node:crypto';
import type { JsonValue } from '../../core/json.js';
import { throwIfProblems } from '../../core/schema-validator.js';
import { NOVA_SCHEMA_VERSION } from './envelope.js';
import type { NovaEnvelope, NovaMessageType, NovaMetadata } from './envelope.js';
import { validateNova } from './validate.js';

/** What the caller decides about a new envelope. */
export interface NovaEnvelopeInit {
  /** Message type. */
  readonly type: NovaMessageType;
  /** Sender agent id. */
  readonly from: string;
  /** Recipient: agent id, `broadcast` (or `*`), or `capability:<verb>`. */
  readonly to: string;
  /** The message body. */
  readonly payload: JsonValue;
  /**
   * The thread this message belongs to.
   * @default the new message's own id (it starts a thread)
   */
  readonly correlationId?: string;
  /** The verb invoked or answered. */
  readonly verb?: string;
  /** Routing metadata. */
  readonly metadata?: NovaMetadata;
  /** Extensions, each key starting `_x_`. */
  readonly extensions?: Readonly<Record<`_x_${string}`, JsonValue>>;
}

/** The sources of ids and time. */
export interface NovaEnvelopeComponents {
  /**
   * Returns the current time.
   * @default () => new Date()
   */
  readonly clock?: () => Date;
  /**
   * Returns a fresh unique message id.
   * @default crypto.randomUUID
   */
  readonly newId?: () => string;
}

/**
 * Creates a Nova envelope with a unique id and the current timestamp (Req. 2.2), schema
 * version {@link NOVA_SCHEMA_VERSION}.
 *
 * @throws PlexusError `INVALID_PARAMS` with `details.problems` when the result is not a
 *   valid Nova envelope (empty `from`, `from` a broadcast marker, bad metadata, …).
 * @example
 * const env = createNovaEnvelope({ type: 'request', from: 'mars', to: 'capability:code.review.run', payload: { pr: 7 } });
 */
export function createNovaEnvelope(
  init: NovaEnvelopeInit,
  components: NovaEnvelopeComponents = {},
): NovaEnvelope {
  const id = (components.newId ?? randomUUID)();
  const timestamp = (components.clock ?? (() => new Date()))().toISOString();
  const envelope: Record<string, unknown> = {
    schemaVersion: NOVA_SCHEMA_VERSION,
    id,
    type: init.type,
    from: init.from,
    to: init.to,
    correlationId: init.correlationId ?? id,
    timestamp,
    payload: init.payload,
  };
  if (init.verb !== undefined) envelope['verb'] = init.verb;
  if (init.metadata !== undefined) envelope['metadata'] = init.metadata;
  Object.assign(envelope, init.extensions);
  throwIfProblems(validateNova(envelope), 'new Nova envelope');
  return envelope as unknown as NovaEnvelope;
}
