/**
 * The in-memory artifact store: the same contract as the file store, held in maps.
 * For tests and ephemeral nodes; everything is lost when the process ends.
 */
import { toPlexusError } from '../core/errors.js';
import { createHash } from 'node:crypto';
import { parseArtifactRef, contentUri, parseWorkspaceUri } from './artifact-uri.js';
import {
  artifactCorrupt,
  artifactNotFound,
  contentChunks,
  contentUriMismatch,
  nameConflict,
  storeStopped,
  throwIfAborted,
  tooLarge,
  type ArtifactContent,
  type ArtifactPutOptions,
  type ArtifactReadOptions,
  type ArtifactRef,
  type ArtifactStore,
} from './artifacts.js';

/** Options of {@link memoryArtifactStore}. */
export interface MemoryArtifactStoreInit {
  /**
   * Largest artifact accepted, in bytes.
   * @default Number.MAX_SAFE_INTEGER
   */
  readonly maxBytes?: number;
}

/** What the memory store keeps per blob; exposed to tests through `corrupt`. */
interface Blob {
  bytes: Uint8Array;
  readonly sha256: string;
}

/** The in-memory artifact store, plus a test hook to damage stored bytes. */
export interface MemoryArtifactStore extends ArtifactStore {
  /**
   * Replaces the stored bytes of `sha256` without updating its digest, so tests can check
   * that reads detect corruption. Returns false when there is no such blob.
   */
  corrupt(sha256: string, bytes: Uint8Array): boolean;
}

/**
 * Creates an in-memory artifact store. It starts usable; `stop()` makes further calls reject
 * until `start()` is called again (contents are kept).
 */
export function memoryArtifactStore(init: MemoryArtifactStoreInit = {}): MemoryArtifactStore {
  const maxBytes = init.maxBytes ?? Number.MAX_SAFE_INTEGER;
  const blobs = new Map<string, Blob>();
  const names = new Map<string, string>();
  let running = true;

  const ensureRunning = (): void => {
    if (!running) throw storeStopped('the memory artifact store');
  };

  const resolve = (ref: string): { sha256: string; uri: string } | undefined => {
    const loc = parseArtifactRef(ref);
    if (loc.kind === 'hash') return { sha256: loc.sha256, uri: contentUri(loc.sha256) };
    const sha256 = names.get(loc.uri);
    return sha256 === undefined ? undefined : { sha256, uri: loc.uri };
  };

  const load = (ref: string, signal: AbortSignal | undefined): Blob => {
    ensureRunning();
    throwIfAborted(signal, 'artifact read');
    const found = resolve(ref);
    const blob = found === undefined ? undefined : blobs.get(found.sha256);
    if (blob === undefined) throw artifactNotFound(ref);
    const actual = createHash('sha256').update(blob.bytes).digest('hex');
    if (actual !== blob.sha256) throw artifactCorrupt(blob.sha256, actual);
    return blob;
  };

  return {
    start(): Promise<void> {
      running = true;
      return Promise.resolve();
    },
    stop(): Promise<void> {
      running = false;
      return Promise.resolve();
    },
    async put(content: ArtifactContent, options: ArtifactPutOptions = {}): Promise<ArtifactRef> {
      ensureRunning();
      throwIfAborted(options.signal, 'artifact put');
      const name = options.uri;
      if (name !== undefined) parseWorkspaceUri(name);
      const hash = createHash('sha256');
      const parts: Uint8Array[] = [];
      let size = 0;
      for await (const chunk of contentChunks(content)) {
        throwIfAborted(options.signal, 'artifact put');
        size += chunk.byteLength;
        if (size > maxBytes) throw tooLarge(maxBytes);
        hash.update(chunk);
        parts.push(chunk.slice());
      }
      ensureRunning();
      const sha256 = hash.digest('hex');
      let uri = contentUri(sha256);
      if (name !== undefined) {
        const loc = parseArtifactRef(name);
        if (loc.kind === 'hash') {
          if (loc.sha256 !== sha256) throw contentUriMismatch(name, sha256);
        } else {
          const bound = names.get(name);
          if (bound !== undefined && bound !== sha256) throw nameConflict(name, bound, sha256);
          uri = name;
        }
      }
      if (!blobs.has(sha256)) {
        const bytes = new Uint8Array(size);
        let offset = 0;
        for (const part of parts) {
          bytes.set(part, offset);
          offset += part.byteLength;
        }
        blobs.set(sha256, { bytes, sha256 });
      }
      if (uri !== contentUri(sha256)) names.set(uri, sha256);
      return { sha256, size, uri };
    },
    get(ref: string, options: ArtifactReadOptions = {}): Promise<Uint8Array> {
      try {
        return Promise.resolve(load(ref, options.signal).bytes.slice());
      } catch (error) {
        return Promise.reject(toPlexusError(error));
      }
    },
    async *stream(ref: string, options: ArtifactReadOptions = {}): AsyncIterable<Uint8Array> {
      const bytes = load(ref, options.signal).bytes;
      const chunk = 64 * 1024;
      for (let offset = 0; offset < bytes.byteLength; offset += chunk) {
        throwIfAborted(options.signal, 'artifact read');
        yield bytes.slice(offset, offset + chunk);
        await Promise.resolve();
      }
    },
    stat(ref: string, options: ArtifactReadOptions = {}): Promise<ArtifactRef | undefined> {
      try {
        ensureRunning();
        throwIfAborted(options.signal, 'artifact stat');
        const found = resolve(ref);
        const blob = found === undefined ? undefined : blobs.get(found.sha256);
        if (found === undefined || blob === undefined) return Promise.resolve(undefined);
        return Promise.resolve({ sha256: found.sha256, size: blob.bytes.byteLength, uri: found.uri });
      } catch (error) {
        return Promise.reject(toPlexusError(error));
      }
    },
    async exists(ref: string, options: ArtifactReadOptions = {}): Promise<boolean> {
      return (await this.stat(ref, options)) !== undefined;
    },
    corrupt(sha256: string, bytes: Uint8Array): boolean {
      const blob = blobs.get(sha256.toLowerCase());
      if (blob === undefined) return false;
      blob.bytes = bytes.slice();
      return true;
    },
  };
}
