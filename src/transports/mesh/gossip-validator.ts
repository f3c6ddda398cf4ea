/**
 * The topic validator of the mesh (seed 003 §7.2, D3): every gossip message is a signed
 * envelope for the topic it travels on. A message is rejected — which lowers its sender's
 * gossipsub score on topics with score parameters — when it is too large, on a topic that is
 * not one of the six, not JSON, malformed, signed for another domain (`dom` ≠ topic), signed
 * outside the time window, a nonce seen before, signed by a key that `from` does not name, or
 * on a capability topic of another peer, or whose payload fails the topic's own check
 * (trajectories). Gossipsub carries no `from` of its own (MESH-48): the envelope's signer is
 * the message's originator, the identity every later step (capability owner, trajectory
 * sender) uses; the peer that forwarded a copy is who gossipsub scores for it. A valid message
 * signed before the node started (`notBefore`) is ignored, not accepted (MESH-32): the replay
 * cache is in memory, so it could be a replay of a message seen before a restart; ignoring it
 * does not lower the score of an honest peer whose message was under way during the restart.
 */
import { toPlexusError } from '../../core/errors.js';
import type { JsonValue } from '../../core/json.js';
import type { EnvelopeVerifier, KeyIdentity, SignedEnvelope } from '../../security/index.js';
import { isMeshTopic, topicPublisher } from './mesh-topics.js';

/** The verdict on one gossip message. */
export type GossipVerdict =
  | {
      readonly result: 'accept';
      readonly envelope: SignedEnvelope;
      readonly signer: KeyIdentity;
    }
  | { readonly result: 'reject' | 'ignore'; readonly code: string; readonly reason: string };

/** Options of {@link gossipValidator}. */
export interface GossipValidatorInit {
  /** Checks signature, domain, window and nonce (a verifier of the mesh's own). */
  readonly verifier: EnvelopeVerifier;
  /** The largest message accepted, bytes. */
  readonly maxMessageBytes: number;
  /**
   * Checks the payload `d` of a message whose envelope passed (e.g. trajectories, MESH-30): a
   * problem rejects the message with `code`. @default none
   */
  readonly payloadCheck?: (
    topic: string,
    d: JsonValue,
    signer: string,
  ) => { readonly code: string; readonly reason: string } | undefined;
  /**
   * Messages signed (`ts`) before this, Unix ms, are ignored even when valid: the node's start
   * (MESH-32). @default no bound
   */
  readonly notBefore?: number;
}

/** Judges gossip messages. */
export interface GossipValidator {
  /**
   * The verdict on `data` received on `topic`; an accepted message's originator is its
   * envelope's signer (MESH-48). Never throws.
   */
  validate(topic: string, data: Uint8Array): GossipVerdict;
}

const reject = (code: string, reason: string): GossipVerdict => ({ result: 'reject', code, reason });

/**
 * Creates the validator.
 *
 * @example
 * const v = gossipValidator({ verifier: envelopeVerifier(), maxMessageBytes: 65536 });
 * v.validate('hyperspace/crdt/sync/memory', bytes); // { result: 'accept', signer, envelope }
 */
export function gossipValidator(init: GossipValidatorInit): GossipValidator {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  return {
    validate(topic, data) {
      if (data.byteLength > init.maxMessageBytes) {
        return reject(
          'PAYLOAD_TOO_LARGE',
          `message of ${data.byteLength} bytes is over the ${init.maxMessageBytes}-byte limit`,
        );
      }
      if (!isMeshTopic(topic)) return reject('INVALID_PARAMS', `"${topic}" is not a Hyperspace topic`);
      let value: unknown;
      try {
        value = JSON.parse(decoder.decode(data));
      } catch {
        return reject('PARSE_ERROR', 'message is not UTF-8 JSON');
      }
      let signer: KeyIdentity;
      let envelope: SignedEnvelope;
      try {
        ({ signer, envelope } = init.verifier.verify(value, topic));
      } catch (error) {
        const failure = toPlexusError(error);
        return reject(failure.code, failure.message);
      }
      const publisher = topicPublisher(topic);
      if (publisher !== undefined && publisher !== signer.peerId) {
        return reject('SIGNER_MISMATCH', `only ${publisher} may publish on ${topic}, not ${signer.peerId}`);
      }
      const problem = init.payloadCheck?.(topic, envelope.d, signer.peerId);
      if (problem !== undefined) return reject(problem.code, problem.reason);
      if (init.notBefore !== undefined && envelope.ts < init.notBefore) {
        return {
          result: 'ignore',
          code: 'SIGNATURE_EXPIRED',
          reason: `signed at ${envelope.ts}, before this node started (${init.notBefore}); it may be a replay of a message seen before a restart`,
        };
      }
      return { result: 'accept', envelope, signer };
    },
  };
}
