/**
 * The node's own Ed25519 key (D2): `<data>/node.key`, created with mode 0600 on first start
 * and read on every later start. Its did:key is the node's id; it signs node-issued bearer
 * tokens (`plexus token issue`) and envelopes forwarded to peers (D3).
 */
import { join } from 'node:path';
import { PlexusError } from '../core/errors.js';
import {
  generateKeyPair,
  identityFromPublicKey,
  readKeyFile,
  writeKeyFile,
  type Ed25519KeyPair,
  type KeyIdentity,
} from '../security/index.js';

/** The key file's name inside the data directory. */
export const NODE_KEY_FILE = 'node.key';

/** The node key and where it came from. */
export interface NodeKey {
  readonly key: Ed25519KeyPair;
  readonly identity: KeyIdentity;
  /** The key file's path. */
  readonly path: string;
  /** True when this call created the file. */
  readonly created: boolean;
}

/** The path of the node key file of a data directory. */
export function nodeKeyPath(dataDir: string): string {
  return join(dataDir, NODE_KEY_FILE);
}

/**
 * Reads `<dataDir>/node.key`, creating it (mode 0600) when it does not exist.
 *
 * @throws PlexusError from `readKeyFile` (`FORBIDDEN` for a file others can read,
 *   `INVALID_PARAMS` / `INVALID_SEMANTIC` for a damaged file) or `writeKeyFile`.
 */
export async function loadOrCreateNodeKey(dataDir: string): Promise<NodeKey> {
  const path = nodeKeyPath(dataDir);
  try {
    const { key, identity } = await readKeyFile(path);
    return { key, identity, path, created: false };
  } catch (error) {
    if (!(error instanceof PlexusError) || error.code !== 'NOT_FOUND') throw error;
  }
  const key = generateKeyPair();
  try {
    await writeKeyFile(path, key);
  } catch (error) {
    // Another process created it first: use that one.
    if (error instanceof PlexusError && error.code === 'CONFLICT') {
      const read = await readKeyFile(path);
      return { key: read.key, identity: read.identity, path, created: false };
    }
    throw error;
  }
  return { key, identity: identityFromPublicKey(key.publicKey), path, created: true };
}
