/**
 * Content ids (DESIGN D9 and the artifact store): CIDv1 with a SHA-256 multihash, written in
 * lower-case base32 (multibase prefix `b`).
 *
 * - An event's cid uses the `json` codec (0x0200) over the RFC 8785 (`jcs`) bytes of the
 *   event without its `seq` and `cid` fields.
 * - An artifact's cid uses the `raw` codec (0x55) over the artifact's bytes, so its digest is
 *   the same SHA-256 an ESRP artifact carries in `sha256`.
 */
import { CID } from 'multiformats/cid';
import * as Digest from 'multiformats/hashes/digest';
import { canonicalizeJcs } from './canonical/jcs.js';
import { PlexusError } from './errors.js';
import { sha256Bytes } from './hash.js';

/** Multicodec of the `json` codec: event cids. */
export const JSON_CODEC = 0x0200;
/** Multicodec of the `raw` codec: artifact cids. */
export const RAW_CODEC = 0x55;
/** Multihash code of SHA2-256. */
export const SHA2_256 = 0x12;

/** The codecs Plexus cids use, by name. */
export type CidCodecName = 'json' | 'raw';

/** What a cid says about itself. */
export interface ParsedCid {
  /** The cid in its canonical text form (CIDv1, base32). */
  readonly cid: string;
  /** The content codec. */
  readonly codec: CidCodecName;
  /** The SHA-256 digest, 64 lower-case hex characters. */
  readonly sha256: string;
}

/**
 * The cid of an event: the `jcs` bytes of `event` without `seq` and `cid`, hashed with
 * SHA-256, as a CIDv1 with the `json` codec.
 *
 * @throws PlexusError `INVALID_PARAMS` when the event is not canonicalisable JSON (see `canonicalizeJcs`).
 */
export function eventCid(event: object): string {
  const rest: Record<string, unknown> = { ...event };
  delete rest['seq'];
  delete rest['cid'];
  return cidOf(JSON_CODEC, sha256Bytes(canonicalizeJcs(rest)));
}

/** The cid of artifact bytes: SHA-256 of the bytes as a CIDv1 with the `raw` codec. */
export function artifactCid(bytes: Uint8Array): string {
  return cidOf(RAW_CODEC, sha256Bytes(bytes));
}

/**
 * The cid for a SHA-256 digest already known as hex (e.g. an ESRP artifact's `sha256`).
 *
 * @throws PlexusError `INVALID_PARAMS` when `sha256` is not 64 hex characters.
 */
export function cidFromSha256Hex(sha256: string, codec: CidCodecName = 'raw'): string {
  if (!/^[0-9a-fA-F]{64}$/.test(sha256)) {
    throw new PlexusError(
      'INVALID_PARAMS',
      `sha256 must be 64 hex characters, not ${JSON.stringify(sha256)}`,
    );
  }
  const digest = new Uint8Array(32);
  for (let i = 0; i < 32; i++) digest[i] = parseInt(sha256.slice(i * 2, i * 2 + 2), 16);
  return cidOf(codec === 'json' ? JSON_CODEC : RAW_CODEC, digest);
}

/**
 * Reads a cid. Accepts any multibase the `multiformats` package reads by default (base32,
 * base58btc, base36), and returns the canonical base32 text.
 *
 * @throws PlexusError `INVALID_PARAMS` when `text` is not a CID, not CIDv1, not SHA-256, or
 *   uses a codec other than `json` and `raw`.
 */
export function parseCid(text: string): ParsedCid {
  let cid: CID;
  try {
    cid = CID.parse(text);
  } catch (cause) {
    throw new PlexusError('INVALID_PARAMS', `not a content id: ${JSON.stringify(text)}`, { cause });
  }
  if (cid.version !== 1) {
    throw new PlexusError('INVALID_PARAMS', `content id ${text} is CIDv${cid.version}; Plexus uses CIDv1`);
  }
  if (cid.multihash.code !== SHA2_256 || cid.multihash.size !== 32) {
    throw new PlexusError('INVALID_PARAMS', `content id ${text} is not a SHA-256 hash`);
  }
  const codec = cid.code === JSON_CODEC ? 'json' : cid.code === RAW_CODEC ? 'raw' : undefined;
  if (codec === undefined) {
    throw new PlexusError(
      'INVALID_PARAMS',
      `content id ${text} uses codec 0x${cid.code.toString(16)}; Plexus uses json (0x200) and raw (0x55)`,
    );
  }
  return { cid: cid.toString(), codec, sha256: toHex(cid.multihash.digest) };
}

/** True when `text` is a cid {@link parseCid} accepts. */
export function isCid(text: unknown): text is string {
  if (typeof text !== 'string') return false;
  try {
    parseCid(text);
    return true;
  } catch {
    return false;
  }
}

function cidOf(codec: number, sha256: Uint8Array): string {
  return CID.createV1(codec, Digest.create(SHA2_256, sha256)).toString();
}

function toHex(bytes: Uint8Array): string {
  let out = '';
  for (const b of bytes) out += b.toString(16).padStart(2, '0');
  return out;
}
