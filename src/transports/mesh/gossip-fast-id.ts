/**
 * The fast message id of the mesh's gossipsub (MESH-38): a SHA-256 over a received message's
 * `from`, `seqno`, `topic` and `data`, read from the wire before any signature check.
 * Gossipsub looks it up before it verifies the message's signature and puts it only after a
 * copy verified, so the copies of a message that arrive from several mesh peers (about D of
 * them) are dropped as duplicates without verifying the signature of each. A copy whose data
 * or topic was changed on the way has another fast id: it is still verified, rejected and
 * scored as before.
 */
import { createHash } from 'node:crypto';

/** The fields of a gossipsub wire message the id covers. */
export interface WireMessage {
  readonly from?: Uint8Array | undefined;
  readonly seqno?: Uint8Array | undefined;
  readonly topic: string;
  readonly data?: Uint8Array | undefined;
}

const EMPTY = new Uint8Array(0);

/** Each field with its length first, so no two field lists give the same bytes. */
function field(hash: ReturnType<typeof createHash>, bytes: Uint8Array): void {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(bytes.byteLength);
  hash.update(length).update(bytes);
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
