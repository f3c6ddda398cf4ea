/**
 * The mesh peers a node has met, kept in `<data>/mesh-peers.json` so a restarted node dials
 * them again without its bootstrap list: `{ "peers": [{ "peerId", "addrs": [...] }] }`, at
 * most {@link MAX_KNOWN_PEERS}, the most recently met first. A missing or damaged file is an
 * empty list.
 */
import { readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** The file's name inside the data directory. */
export const KNOWN_PEERS_FILE = 'mesh-peers.json';
/** The most peers kept. */
export const MAX_KNOWN_PEERS = 64;

/** One known peer. */
export interface KnownPeer {
  readonly peerId: string;
  /** Its listen multiaddrs, without `/p2p/…`. */
  readonly addrs: readonly string[];
}

/** Reads the known peers of `dataDir`. Never throws. */
export async function readKnownPeers(dataDir: string): Promise<KnownPeer[]> {
  try {
    const value: unknown = JSON.parse(await readFile(join(dataDir, KNOWN_PEERS_FILE), 'utf8'));
    const peers = (value as { peers?: unknown } | null)?.peers;
    if (!Array.isArray(peers)) return [];
    return peers
      .filter(
        (p): p is KnownPeer =>
          typeof (p as KnownPeer | null)?.peerId === 'string' &&
          Array.isArray((p as KnownPeer).addrs) &&
          (p as KnownPeer).addrs.every((a) => typeof a === 'string'),
      )
      .slice(0, MAX_KNOWN_PEERS);
  } catch {
    return [];
  }
}

/** Writes the known peers of `dataDir` (atomically: a temporary file, then a rename). */
export async function writeKnownPeers(dataDir: string, peers: readonly KnownPeer[]): Promise<void> {
  const path = join(dataDir, KNOWN_PEERS_FILE);
  const temporary = `${path}.tmp`;
  await writeFile(temporary, `${JSON.stringify({ peers: peers.slice(0, MAX_KNOWN_PEERS) }, null, 2)}\n`, {
    mode: 0o600,
  });
  await rename(temporary, path);
}

/** `peers` with `peer` first (replacing an older entry of the same id), capped. */
export function rememberPeer(peers: readonly KnownPeer[], peer: KnownPeer): KnownPeer[] {
  return [peer, ...peers.filter((p) => p.peerId !== peer.peerId)].slice(0, MAX_KNOWN_PEERS);
}
