/**
 * Where a memory lives (seed 003 §4.4): the hash ring over this node and the mesh's other
 * peers picks `replication` owners (primary + replicas); a write succeeds only when every
 * owner other than this node is reachable and acknowledges the copy, else it fails with
 * `REPLICATION_FAILED` (−32007). On a node without peers the ring holds only this node, the
 * factor is met by the local write, and nothing goes over the network.
 */
import { PlexusError, toPlexusError } from '../../core/errors.js';
import type { JsonObject } from '../../core/json.js';
import type { SignalOptions } from '../../store/event-log.js';
import { hashRing, type HashRing, type HashRingInit } from './hash-ring.js';

/** A peer of the mesh as the memory primitive sees it. */
export interface MemoryPeer {
  readonly peerId: string;
  /** Whether it can be reached now. */
  readonly available: boolean;
}

/** The mesh, as far as memory replication needs it (the libp2p transport implements it). */
export interface MemoryPeers {
  /** The other peers on the ring (this node excluded). */
  members(): readonly MemoryPeer[];
  /**
   * Sends a stored memory (the `memory.stored` event data and its tenant) to an owner;
   * resolves when the owner acknowledged it.
   */
  replicate(peerId: string, memory: JsonObject, options: SignalOptions): Promise<void>;
}

/** Options of {@link memoryPlacement}. */
export interface MemoryPlacementInit {
  /** This node's peer id. */
  readonly self: string;
  readonly peers?: MemoryPeers;
  readonly ring?: Omit<HashRingInit, 'peers'>;
}

/** The owners of one memory. */
export interface Owners {
  /** The primary owner. */
  readonly peerId: string;
  /** The other owners, in ring order. */
  readonly replicas: readonly string[];
}

/** Decides owners and replicates. */
export interface MemoryPlacement {
  readonly ring: HashRing;
  /**
   * The owners of `id` on the current ring.
   * @throws PlexusError `REPLICATION_FAILED` when an owner is unavailable (details: `required`,
   *   `owners`, `unavailable`).
   */
  place(id: string): Owners;
  /**
   * Sends the memory to every owner but this node and waits for their acknowledgements.
   * @throws PlexusError `REPLICATION_FAILED` naming the owners that did not acknowledge.
   */
  replicate(owners: Owners, memory: JsonObject, options: SignalOptions): Promise<void>;
}

/** Creates the placement over a ring kept in step with `peers.members()`. */
export function memoryPlacement(init: MemoryPlacementInit): MemoryPlacement {
  const ring = hashRing({ ...init.ring, peers: [init.self] });
  const sync = (): Map<string, boolean> => {
    const available = new Map<string, boolean>([[init.self, true]]);
    for (const p of init.peers?.members() ?? [])
      if (p.peerId !== init.self) available.set(p.peerId, p.available);
    for (const peer of ring.peers()) if (!available.has(peer)) ring.remove(peer);
    for (const peer of available.keys()) ring.add(peer);
    return available;
  };
  const failure = (owners: readonly string[], unavailable: readonly string[], why: string): PlexusError =>
    new PlexusError(
      'REPLICATION_FAILED',
      `memory write did not meet its replication factor: ${why}; retry when the peers are back`,
      {
        details: {
          required: owners.length,
          acknowledged: owners.length - unavailable.length,
          owners: [...owners],
          unavailable: [...unavailable],
        },
      },
    );
  return {
    ring,
    place(id) {
      const available = sync();
      const owners = ring.owners(id);
      const down = owners.filter((p) => available.get(p) !== true);
      if (down.length > 0) throw failure(owners, down, `owner(s) ${down.join(', ')} unavailable`);
      const [peerId = init.self, ...replicas] = owners;
      return { peerId, replicas };
    },
    async replicate(owners, memory, options) {
      const all = [owners.peerId, ...owners.replicas];
      const remote = all.filter((p) => p !== init.self);
      if (remote.length === 0) return;
      const peers = init.peers;
      if (peers === undefined) throw failure(all, remote, 'no mesh to reach the other owners');
      const results = await Promise.allSettled(remote.map((p) => peers.replicate(p, memory, options)));
      const failed = remote.filter((_, i) => results[i]?.status === 'rejected');
      if (failed.length > 0) {
        const first = results.find((r) => r.status === 'rejected');
        const reason = first?.status === 'rejected' ? toPlexusError(first.reason).message : '';
        throw failure(all, failed, `owner(s) ${failed.join(', ')} did not acknowledge (${reason})`);
      }
    },
  };
}
