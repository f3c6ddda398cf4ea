/**
 * The artifact store contract: immutable, content-addressed blobs for ESRP artifacts.
 *
 * Content is addressed by its SHA-256 digest. A blob may also be bound to a
 * `workspace://` name (ESRP's `workspace://artifacts/audio_1.wav`); a name, once bound,
 * always means the same content. Every implementation (file system, memory) passes the one
 * contract suite `runArtifactStoreContract`.
 */
import { PlexusError } from '../core/errors.js';

/** What `put` stores: bytes in memory, or a stream of chunks (a Node `Readable` is one). */
export type ArtifactContent = Uint8Array | AsyncIterable<Uint8Array>;

/** Where a stored artifact lives and what it is. */
export interface ArtifactRef {
  /** SHA-256 of the content, 64 lower-case hex characters. */
  readonly sha256: string;
  /** Size of the content in bytes. */
  readonly size: number;
  /**
   * A `workspace://` URI that resolves to the content: the bound name when `put` was given
   * one, otherwise the content URI `workspace://artifacts/sha256/<hex>`.
   */
  readonly uri: string;
}

/** Options of {@link ArtifactStore.put}. */
export interface ArtifactPutOptions {
  /**
   * A `workspace://` name to bind to the content. Binding the same name to the same content
   * again is a no-op; binding it to other content is a `CONFLICT`. Names under
   * `workspace://artifacts/sha256/` are reserved for content URIs.
   */
  readonly uri?: string;
  /** Aborts the put; nothing is left behind. */
  readonly signal?: AbortSignal;
}

/** Options of the read methods. */
export interface ArtifactReadOptions {
  /** Aborts the read. */
  readonly signal?: AbortSignal;
}

/**
 * A content-addressed artifact store.
 *
 * A `ref` argument is a sha256 digest (64 hex characters), a content URI
 * `workspace://artifacts/sha256/<hex>`, or a bound `workspace://` name.
 */
export interface ArtifactStore {
  /** Prepares the store (creates directories); idempotent. */
  start(): Promise<void>;
  /** Releases the store; safe to call twice. Later calls reject with `UNAVAILABLE` until `start()`. */
  stop(): Promise<void>;
  /**
   * Stores `content` and returns its reference. Idempotent: storing the same bytes twice
   * keeps one copy and returns the same digest.
   *
   * @throws PlexusError `INPUT_TOO_LARGE` beyond the store's `maxBytes`; `INVALID_PARAMS`
   *   for a bad `uri` or a chunk that is not a Uint8Array; `CONFLICT` when `uri` is already
   *   bound to other content; `CANCELLED` when the signal aborts; `UNAVAILABLE` when stopped.
   */
  put(content: ArtifactContent, options?: ArtifactPutOptions): Promise<ArtifactRef>;
  /**
   * Returns the whole content, after checking that it still hashes to its digest.
   *
   * @throws PlexusError `NOT_FOUND` when absent; `INTERNAL` when the stored bytes no longer
   *   match their digest (corruption); `INVALID_PARAMS` for a malformed ref.
   */
  get(ref: string, options?: ArtifactReadOptions): Promise<Uint8Array>;
  /**
   * Streams the content in chunks. The digest is checked as the chunks go by; a mismatch
   * throws from the iteration after the last chunk, so a consumer must treat the data as
   * unverified until the iteration ends without error.
   *
   * @throws PlexusError as {@link ArtifactStore.get}.
   */
  stream(ref: string, options?: ArtifactReadOptions): AsyncIterable<Uint8Array>;
  /**
   * Returns the reference of a stored artifact, or `undefined` when absent. For a name, `uri`
   * is that name; for a digest, the content URI. Does not re-hash the content.
   *
   * @throws PlexusError `INVALID_PARAMS` for a malformed ref.
   */
  stat(ref: string, options?: ArtifactReadOptions): Promise<ArtifactRef | undefined>;
  /** True when `ref` resolves to stored content. @throws as {@link ArtifactStore.stat}. */
  exists(ref: string, options?: ArtifactReadOptions): Promise<boolean>;
}

/** Throws `CANCELLED` when `signal` has aborted. */
export function throwIfAborted(signal: AbortSignal | undefined, what: string): void {
  if (signal?.aborted === true) {
    throw new PlexusError('CANCELLED', `${what} was aborted`, { cause: signal.reason });
  }
}

/** Yields the content as chunks, checking each one is a Uint8Array. */
export async function* contentChunks(content: ArtifactContent): AsyncIterable<Uint8Array> {
  if (content instanceof Uint8Array) {
    yield content;
    return;
  }
  if (typeof content !== 'object' || !(Symbol.asyncIterator in content)) {
    throw new PlexusError(
      'INVALID_PARAMS',
      'artifact content must be a Uint8Array or an async iterable of Uint8Array',
    );
  }
  for await (const chunk of content) {
    if (!(chunk instanceof Uint8Array)) {
      throw new PlexusError(
        'INVALID_PARAMS',
        `artifact stream yielded a ${typeof chunk}; every chunk must be a Uint8Array`,
      );
    }
    yield chunk;
  }
}

/** The error for content larger than the store accepts. */
export function tooLarge(maxBytes: number): PlexusError {
  return new PlexusError('INPUT_TOO_LARGE', `artifact is larger than the limit of ${maxBytes} bytes`, {
    details: { maxBytes },
  });
}

/** The error for a ref that resolves to nothing. */
export function artifactNotFound(ref: string): PlexusError {
  return new PlexusError('NOT_FOUND', `no artifact ${ref}`);
}

/** The error for stored bytes that no longer match their digest. */
export function artifactCorrupt(expected: string, actual: string): PlexusError {
  return new PlexusError('INTERNAL', `artifact ${expected} is corrupt: its stored bytes hash to ${actual}`, {
    details: { expected, actual },
  });
}

/** The error for binding a name that is already bound to other content. */
export function nameConflict(uri: string, bound: string, offered: string): PlexusError {
  return new PlexusError(
    'CONFLICT',
    `${uri} is already bound to sha256 ${bound}; artifacts are immutable, choose another name (offered ${offered})`,
    { details: { uri, bound, offered } },
  );
}

/** The error for a put whose `uri` is a content URI of other content. */
export function contentUriMismatch(uri: string, actual: string): PlexusError {
  return new PlexusError(
    'INVALID_PARAMS',
    `${uri} is a content URI but the content hashes to ${actual}; names under workspace://artifacts/sha256/ are reserved for content addresses`,
    { details: { uri, actual } },
  );
}

/** The error for calls on a stopped store. */
export function storeStopped(what: string): PlexusError {
  return new PlexusError('UNAVAILABLE', `${what} is stopped; call start() first`, { retryable: false });
}
