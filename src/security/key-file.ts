/**
 * Key files (DESIGN D2): one Ed25519 key per agent, stored as JSON with mode 0600.
 *
 * ```json
 * {
 *   "format": "plexus-ed25519-key",
 *   "version": 1,
 *   "did": "did:key:z6Mk…",
 *   "peerId": "12D3KooW…",
 *   "publicKey": "<32 bytes, unpadded base64url>",
 *   "secretKey": "<32-byte RFC 8032 secret key (seed), unpadded base64url>"
 * }
 * ```
 *
 * The file is created with mode 0600 (never widened and narrowed afterwards). Reading checks
 * every field: the public key, did and PeerId must all be the ones the secret key derives.
 * A file that group or others may read or write is refused unless the caller opts in, in
 * which case the result says so.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, open, rename, unlink } from 'node:fs/promises';
import { dirname } from 'node:path';
import { PlexusError } from '../core/errors.js';
import { fromBase64Url, toBase64Url } from './base64url.js';
import { keyPairFromSeed, type Ed25519KeyPair } from './ed25519.js';
import { identityFromPublicKey, type KeyIdentity } from './identity.js';
import { parseJson } from '../core/parse-json.js';

/** The `format` tag of a key file. */
export const KEY_FILE_FORMAT = 'plexus-ed25519-key';
/** The `version` of the key-file format this code writes and reads. */
export const KEY_FILE_VERSION = 1;
/** The mode key files are created with. */
export const KEY_FILE_MODE = 0o600;
/** The largest key file read, in bytes. */
const MAX_KEY_FILE_BYTES = 64 * 1024;
const FIELDS = ['format', 'version', 'did', 'peerId', 'publicKey', 'secretKey'] as const;

/** A key read from a key file. */
export interface KeyFileContents {
  /** The key pair. */
  readonly key: Ed25519KeyPair;
  /** Its did:key, PeerId and public key. */
  readonly identity: KeyIdentity;
}

/** What {@link readKeyFile} returns. */
export interface KeyFileRead extends KeyFileContents {
  /** The file's permission bits (e.g. 0o600). */
  readonly mode: number;
  /** True when group or others have any permission on the file (only possible with `allowInsecurePermissions`). */
  readonly insecurePermissions: boolean;
}

/** Options for {@link readKeyFile}. */
export interface ReadKeyFileInit {
  /**
   * Read a file that group or others may access instead of refusing it; the result's
   * `insecurePermissions` is then true.
   * @default false
   */
  readonly allowInsecurePermissions?: boolean;
  /** Cancels the read. */
  readonly signal?: AbortSignal;
}

/** Options for {@link writeKeyFile}. */
export interface WriteKeyFileInit {
  /**
   * Replace an existing file (atomically, through a 0600 temporary file and a rename).
   * @default false
   */
  readonly overwrite?: boolean;
  /** Cancels the write. */
  readonly signal?: AbortSignal;
}

/** Returns the key-file JSON text of `key` (two-space indented, with a final newline). */
export function encodeKeyFile(key: Ed25519KeyPair): string {
  const identity = identityFromPublicKey(key.publicKey);
  const file = {
    format: KEY_FILE_FORMAT,
    version: KEY_FILE_VERSION,
    did: identity.did,
    peerId: identity.peerId,
    publicKey: identity.publicKeyBase64Url,
    secretKey: toBase64Url(key.secretKey),
  };
  return JSON.stringify(file, null, 2) + '\n';
}

function bad(
  source: string,
  message: string,
  code: 'INVALID_PARAMS' | 'INVALID_SEMANTIC' = 'INVALID_PARAMS',
): never {
  throw new PlexusError(code, `key file ${source}: ${message}`);
}

/**
 * Parses and checks key-file text.
 *
 * @param source names the file in error messages.
 * @throws PlexusError `PARSE_ERROR` when the text is not JSON; `INVALID_PARAMS` when a field
 *   is missing, unknown, of the wrong type or encoding, or the format / version is not this
 *   one; `INVALID_SEMANTIC` when `publicKey`, `did` or `peerId` is not the one `secretKey`
 *   derives.
 */
export function parseKeyFile(text: string, source = '(text)'): KeyFileContents {
  const value: unknown = parseJson(text, `key file ${source}`);
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    bad(source, 'must be a JSON object');
  }
  const obj = value as Record<string, unknown>;
  for (const field of Object.keys(obj)) {
    if (!(FIELDS as readonly string[]).includes(field)) bad(source, `has an unknown field "${field}"`);
  }
  for (const field of FIELDS) {
    if (!(field in obj)) bad(source, `is missing the field "${field}"`);
  }
  if (obj.format !== KEY_FILE_FORMAT) {
    bad(source, `field "format" must be "${KEY_FILE_FORMAT}", got ${JSON.stringify(obj.format)}`);
  }
  if (obj.version !== KEY_FILE_VERSION) {
    bad(source, `field "version" must be ${KEY_FILE_VERSION}, got ${JSON.stringify(obj.version)}`);
  }
  for (const field of ['did', 'peerId'] as const) {
    if (typeof obj[field] !== 'string') bad(source, `field "${field}" must be a string`);
  }
  let secret: Buffer;
  let publicKey: Buffer;
  try {
    secret = fromBase64Url(obj.secretKey, 32, 'secretKey');
    publicKey = fromBase64Url(obj.publicKey, 32, 'publicKey');
  } catch (cause) {
    throw new PlexusError('INVALID_PARAMS', `key file ${source}: field ${(cause as Error).message}`, {
      cause,
    });
  }
  const key = keyPairFromSeed(secret);
  const identity = identityFromPublicKey(key.publicKey);
  if (!publicKey.equals(key.publicKey)) {
    bad(source, 'field "publicKey" is not the public key of "secretKey"', 'INVALID_SEMANTIC');
  }
  if (obj.did !== identity.did) {
    bad(source, `field "did" is not the did:key of the key (expected ${identity.did})`, 'INVALID_SEMANTIC');
  }
  if (obj.peerId !== identity.peerId) {
    bad(
      source,
      `field "peerId" is not the PeerId of the key (expected ${identity.peerId})`,
      'INVALID_SEMANTIC',
    );
  }
  return { key, identity };
}

function abortCheck(signal: AbortSignal | undefined, path: string): void {
  if (signal?.aborted === true) {
    throw new PlexusError('CANCELLED', `key file operation on ${path} was cancelled`, {
      cause: signal.reason,
    });
  }
}

function ioError(err: unknown, path: string, action: string): PlexusError {
  if (err instanceof PlexusError) return err;
  const code = (err as NodeJS.ErrnoException).code;
  switch (code) {
    case 'ENOENT':
      return new PlexusError('NOT_FOUND', `cannot ${action} key file ${path}: no such file or directory`, {
        cause: err,
      });
    case 'EEXIST':
      return new PlexusError('CONFLICT', `key file ${path} already exists; refusing to overwrite it`, {
        cause: err,
      });
    case 'EACCES':
    case 'EPERM':
      return new PlexusError('FORBIDDEN', `cannot ${action} key file ${path}: permission denied`, {
        cause: err,
      });
    case 'ABORT_ERR':
      return new PlexusError('CANCELLED', `key file operation on ${path} was cancelled`, { cause: err });
    default:
      return new PlexusError('INTERNAL', `cannot ${action} key file ${path}: ${(err as Error).message}`, {
        cause: err,
      });
  }
}

/**
 * Writes `key` to a new key file at `path`, created with mode 0600 (parent directories are
 * created with mode 0700 when missing).
 *
 * @throws PlexusError `CONFLICT` when the file exists and `overwrite` is not set;
 *   `FORBIDDEN` on a permission error; `CANCELLED` when `signal` aborts; `INTERNAL` on other
 *   I/O failures.
 */
export async function writeKeyFile(
  path: string,
  key: Ed25519KeyPair,
  init: WriteKeyFileInit = {},
): Promise<void> {
  const text = encodeKeyFile(key);
  abortCheck(init.signal, path);
  const target = init.overwrite === true ? `${path}.${randomBytes(6).toString('hex')}.tmp` : path;
  let created = false;
  try {
    await mkdir(dirname(path), { recursive: true, mode: 0o700 });
    const handle = await open(target, 'wx', KEY_FILE_MODE);
    created = true;
    try {
      await handle.writeFile(text, { encoding: 'utf8' });
      await handle.sync();
    } finally {
      await handle.close();
    }
    abortCheck(init.signal, path);
    if (target !== path) await rename(target, path);
  } catch (err) {
    if (created) await unlink(target).catch(() => undefined);
    throw ioError(err, path, 'write');
  }
}

/**
 * Reads and checks the key file at `path`. The permission check uses the open file (no race
 * between check and read); it is skipped on Windows, which has no POSIX modes.
 *
 * @throws PlexusError `NOT_FOUND` when there is no file; `FORBIDDEN` when group or others have
 *   any permission on it (unless `allowInsecurePermissions`) or it cannot be read;
 *   `INVALID_PARAMS` when it is not a regular file; `INPUT_TOO_LARGE` above 64 KiB;
 *   `CANCELLED` when `signal` aborts; and whatever {@link parseKeyFile} throws.
 */
export async function readKeyFile(path: string, init: ReadKeyFileInit = {}): Promise<KeyFileRead> {
  abortCheck(init.signal, path);
  let text: string;
  let mode: number;
  try {
    const handle = await open(path, 'r');
    try {
      const stat = await handle.stat();
      if (!stat.isFile()) throw new PlexusError('INVALID_PARAMS', `key file ${path} is not a regular file`);
      mode = stat.mode & 0o777;
      if (process.platform !== 'win32' && (mode & 0o077) !== 0 && init.allowInsecurePermissions !== true) {
        throw new PlexusError(
          'FORBIDDEN',
          `key file ${path} has mode 0${mode.toString(8)}: group or others can access it; run "chmod 600 ${path}"`,
          { details: { mode } },
        );
      }
      if (stat.size > MAX_KEY_FILE_BYTES) {
        throw new PlexusError(
          'INPUT_TOO_LARGE',
          `key file ${path} is ${stat.size} bytes; a key file is under 1 KiB`,
        );
      }
      text = await handle.readFile({ encoding: 'utf8', ...(init.signal ? { signal: init.signal } : {}) });
    } finally {
      await handle.close();
    }
  } catch (err) {
    throw ioError(err, path, 'read');
  }
  const contents = parseKeyFile(text, path);
  return {
    ...contents,
    mode,
    insecurePermissions: process.platform !== 'win32' && (mode & 0o077) !== 0,
  };
}
