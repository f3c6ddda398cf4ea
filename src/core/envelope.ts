/**
 * The one internal message of Plexus (DESIGN §2).
 *
 * Every face decodes its wire format into an {@link Envelope} and encodes an Envelope back.
 * No face adds fields of its own here: what a wire format carries beyond these fields goes
 * into `extensions`, under a key that starts with `_x_`.
 */
import type { JsonObject, JsonValue } from './json.js';

/** Every envelope kind, in a fixed order (DESIGN §2; Nova26 Req. 2.5 plus `hello`). */
export const ENVELOPE_KINDS = [
  'request',
  'response',
  'error',
  'notification',
  'hello',
  'task-proposal',
  'task-accept',
  'task-reject',
  'stream-start',
  'stream-data',
  'stream-end',
] as const;

/** What an envelope is: a request, its answer, an announcement, a stream part. */
export type EnvelopeKind = (typeof ENVELOPE_KINDS)[number];

/** True when `value` is an {@link EnvelopeKind}. */
export function isEnvelopeKind(value: unknown): value is EnvelopeKind {
  return typeof value === 'string' && (ENVELOPE_KINDS as readonly string[]).includes(value);
}

/** The address every agent receives: `broadcast` (D4, D11). It is no agent's id. */
export const BROADCAST = 'broadcast';

/**
 * The signature block of a signed envelope (DESIGN D3). The signed payload is the
 * envelope's `data`.
 */
export interface EnvelopeSignature {
  /** Signed-envelope format version; always 2. */
  readonly v: 2;
  /** Signing time, Unix milliseconds. */
  readonly ts: number;
  /** 16 random bytes, base64url. */
  readonly nonce: string;
  /** The signer's identity (did:key or PeerId). */
  readonly from: string;
  /** The signer's 32-byte Ed25519 public key, base64url. */
  readonly pk: string;
  /** The 64-byte Ed25519 signature, base64url. */
  readonly sig: string;
  /**
   * The domain signed for (a Plexus addition to D3, see docs/decisions/security.md, D3-004). The signature
   * covers the domain either way; carrying it lets a verifier tell a signature made for
   * another domain from a changed payload.
   */
  readonly dom?: string;
}

/**
 * The core message. Optional fields are absent rather than `undefined` or `null` when a
 * wire format does not carry them.
 */
export interface Envelope {
  /** Message id; a reply reuses its request's id where the wire format says so. */
  readonly id: string;
  /** What the message is. */
  readonly kind: EnvelopeKind;
  /** Sender agent id. */
  readonly from: string;
  /** Recipient: an agent id, `broadcast`, or a capability selector. */
  readonly to: string;
  /** The verb (action); for answers, the verb of the request answered. */
  readonly verb: string;
  /** The payload. For `kind: 'error'` it is an {@link ErrorData}. */
  readonly data: JsonValue;
  /** Conversation / request being answered. */
  readonly correlationId?: string;
  /** The message that caused this one. */
  readonly causationId?: string;
  /** Groups related requests (ESRP scope). */
  readonly scopeId?: string;
  /** Session context (AGENTESE, Hyperspace). */
  readonly sessionId?: string;
  /** Tenant (isolation boundary). */
  readonly tenantId?: string;
  /** Invoking user. */
  readonly userId?: string;
  /** W3C trace context `traceparent` header value. */
  readonly traceparent?: string;
  /** W3C trace context `tracestate` carried beside `traceparent` (OBS-45). */
  readonly tracestate?: string;
  /** Creation time, RFC 3339 / ISO 8601 (absent when the wire format has none). */
  readonly timestamp?: string;
  /** Deadline, RFC 3339 / ISO 8601. */
  readonly deadline?: string;
  /** Capability token (UCAN JWT). */
  readonly capability?: string;
  /** Signature block (D3). */
  readonly signature?: EnvelopeSignature;
  /** The wire format's schema version, where it has one. */
  readonly schemaVersion?: string;
  /** Extension fields; every key starts with `_x_`. */
  readonly extensions?: JsonObject;
}

/** The prefix every extension key must carry (Emergence §1, D4). */
export const EXTENSION_PREFIX = '_x_';
