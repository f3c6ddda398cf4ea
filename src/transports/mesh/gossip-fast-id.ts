/**
 * The message ids of the mesh's gossipsub.
 *
 * - {@link envelopeMessageId} (MESH-48), the mesh's own: gossipsub runs without its own
 *   signature (`StrictNoSign`), every message being a D3 envelope that names and proves its
 *   signer, so a message is identified by a SHA-256 digest of its topic and its bytes — the
 *   envelope with its nonce and signature. Copies of one message share it and are dropped as
 *   duplicates before the validator; a copy changed in any byte has another id, so it is
 *   validated, rejected and scored on its own and cannot shadow the genuine one.
 * - {@link fastMessageId} (MESH-38), for a gossipsub that signs its messages itself
 *   (`StrictSign`, the `libp2p` signing of mesh-peer.ts, the bench's raw baseline): a SHA-256
 *   over a received message's `from`, `seqno`, `topic` and `data`, read from the wire before
 *   the signature check, so copies of a verified message skip the check.
 */
import { createHash } from 'node:crypto';

/** The fields of a gossipsub wire message the fast id covers. */
export interface WireMessage {
  readonly from?: Uint8Array | undefined;
  readonly seqno?: Uint8Array | undefined;
  readonly topic: string;
  readonly data?: Uint8Array | undefined;
}

/** The fields of a gossipsub message the envelope id covers. */
export interface EnvelopeMessage {
  readonly topic: string;
  readonly data: Uint8Array;
}

const EMPTY = new Uint8Array(0);

/** Each field with its length first, so no two field lists give the same bytes. */
function field(hash: ReturnType<typeof createHash>, bytes: Uint8Array): void {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(bytes.byteLength);
  hash.update(length).update(bytes);
}

/**
 * The message id of an (unsigned at the gossipsub level) mesh message: SHA-256 over its topic
 * and its data, each length-prefixed; 32 bytes.
 * @example
 * envelopeMessageId({ topic: 'hyperspace/crdt/sync/memory', data }); // Uint8Array(32)
 */
export function envelopeMessageId(msg: EnvelopeMessage): Uint8Array {
  const hash = createHash('sha256');
  field(hash, Buffer.from(msg.topic, 'utf8'));
  field(hash, msg.data);
  return hash.digest();
}

/**
 * The fast id of `msg`, base64.
 * @example
 * fastMessageId({ from, seqno, topic: 'hyperspace/crdt/sync/memory', data }); // 'k3J…='
 */
export function fastMessageId(msg: WireMessage): string {
  const hash = createHash('sha256');
  field(hash, msg.from ?? EMPTY);
  field(hash, msg.seqno ?? EMPTY);
  field(hash, Buffer.from(msg.topic, 'utf8'));
  field(hash, msg.data ?? EMPTY);
  return hash.digest('base64');
}
