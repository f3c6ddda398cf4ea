/**
 * The DHT keys of capabilities (seed 003 §2.4; issue 15 item 4): one key per verb, the CID
 * (v1, raw codec, sha2-256) of the text `plexus/capability/<verb>` — the verb without its
 * `@version`, so every era of a verb shares one key.
 */
import { createHash } from 'node:crypto';
import { CID } from 'multiformats/cid';
import { create as createDigest } from 'multiformats/hashes/digest';
import { stripVerbVersion } from '../../core/verb-name.js';

/** The multicodec code of raw bytes. */
const RAW_CODEC = 0x55;
/** The multihash code of sha2-256. */
const SHA2_256 = 0x12;

/** The prefix of the text a capability key hashes. */
export const CAPABILITY_KEY_PREFIX = 'plexus/capability/';

/**
 * The DHT key of `verb`.
 * @example
 * capabilityKey('weather.forecast.get').toString(); // 'bafkrei…'
 */
export function capabilityKey(verb: string): CID {
  const text = `${CAPABILITY_KEY_PREFIX}${stripVerbVersion(verb)}`;
  const hash = createHash('sha256').update(text, 'utf8').digest();
  return CID.createV1(RAW_CODEC, createDigest(SHA2_256, new Uint8Array(hash)));
}
