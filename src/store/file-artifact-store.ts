/**
 * The file-system artifact store.
 *
 * Layout under the data directory:
 * - `artifacts/sha256/ab/cdef…` — the content, named by its digest (first two hex
 *   characters as a fan-out directory, the other 62 as the file name), mode 0444;
 * - `artifacts/names/xy/…` — one small JSON file `{uri, sha256, size}` per bound
 *   `workspace://` name, named by the SHA-256 of the URI (so a name never becomes a path
 *   and cannot escape the directory, whatever it contains);
 * - `artifacts/tmp/` — uploads in progress; written, hashed, then renamed into place.
 */
import { createHash, randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { chmod, mkdir, open, readFile, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { PlexusError } from '../core/errors.js';
import { contentUri, parseArtifactRef, parseWorkspaceUri } from './artifact-uri.js';
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

/** Options of {@link fileArtifactStore}. */
export interface FileArtifactStoreInit {
  /** The node's data directory; artifacts live in `<dir>/artifacts/`. Created if missing. */
  readonly dir: string;
  /**
   * Largest artifact accepted, in bytes.
   * @default Number.MAX_SAFE_INTEGER
   */
  readonly maxBytes?: number;
  /**
   * fsync each blob and name file before it becomes visible. Off by default, matching the
   * event log's default durability (survives a process crash, not a power cut); a blob torn
   * by a power cut is caught by the integrity check on read and replaced by the next put.
   * @default false
   */
  readonly fsync?: boolean;
}

interface NameRecord {
  readonly uri: string;
  readonly sha256: string;
  readonly size: number;
}

const isErrno = (error: unknown, code: string): boolean =>
  typeof error === 'object' && error !== null && (error as { code?: unknown }).code === code;

/**
 * Creates an artifact store in `<dir>/artifacts/`. Call `start()` before use.
 *
 * @example
 * const artifacts = fileArtifactStore({ dir: '.plexus' });
 * await artifacts.start();
 * const ref = await artifacts.put(bytes, { uri: 'workspace://artifacts/audio_1.wav' });
 */
export function fileArtifactStore(init: FileArtifactStoreInit): ArtifactStore {
  const root = join(init.dir, 'artifacts');
  const blobDir = join(root, 'sha256');
  const nameDir = join(root, 'names');
  const tmpDir = join(root, 'tmp');
  const maxBytes = init.maxBytes ?? Number.MAX_SAFE_INTEGER;
  const fsync = init.fsync ?? false;
  let running = false;

  const ensureRunning = (): void => {
    if (!running) throw storeStopped('the file artifact store');
  };
  const blobPath = (sha256: string): string => join(blobDir, sha256.slice(0, 2), sha256.slice(2));
  const namePath = (uri: string): string => {
    const key = createHash('sha256').update(uri).digest('hex');
    return join(nameDir, key.slice(0, 2), key.slice(2) + '.json');
  };

  const readName = async (uri: string): Promise<NameRecord | undefined> => {
    let text: string;
    try {
      text = await readFile(namePath(uri), 'utf8');
    } catch (error) {
      if (isErrno(error, 'ENOENT')) return undefined;
      throw new PlexusError('INTERNAL', `cannot read the binding of ${uri}`, { cause: error });
    }
    try {
      const record = JSON.parse(text) as NameRecord;
      if (record.uri === uri && typeof record.sha256 === 'string') return record;
    } catch {
      // fall through to the corruption error
    }
    throw new PlexusError('INTERNAL', `the binding file of ${uri} is damaged (${namePath(uri)})`);
  };

  const resolve = async (ref: string): Promise<{ sha256: string; uri: string } | undefined> => {
    const loc = parseArtifactRef(ref);
    if (loc.kind === 'hash') return { sha256: loc.sha256, uri: contentUri(loc.sha256) };
    const record = await readName(loc.uri);
    return record === undefined ? undefined : { sha256: record.sha256, uri: loc.uri };
  };

  const bind = async (record: NameRecord): Promise<void> => {
    const path = namePath(record.uri);
    await mkdir(join(path, '..'), { recursive: true });
    try {
      const handle = await open(path, 'wx', 0o444);
      try {
        await handle.writeFile(JSON.stringify(record));
        if (fsync) await handle.sync();
      } finally {
        await handle.close();
      }
    } catch (error) {
      if (!isErrno(error, 'EEXIST')) {
        throw new PlexusError('INTERNAL', `cannot bind ${record.uri}`, { cause: error });
      }
      const bound = await readName(record.uri);
      if (bound !== undefined && bound.sha256 !== record.sha256) {
        throw nameConflict(record.uri, bound.sha256, record.sha256);
      }
    }
  };

  /** Writes the content to a temp file; returns its digest, size and temp path. */
  const receive = async (
    content: ArtifactContent,
    signal: AbortSignal | undefined,
  ): Promise<{ sha256: string; size: number; tmp: string }> => {
    const tmp = join(tmpDir, randomUUID());
    const handle = await open(tmp, 'wx', 0o644);
    const hash = createHash('sha256');
    let size = 0;
    try {
      for await (const chunk of contentChunks(content)) {
        throwIfAborted(signal, 'artifact put');
        size += chunk.byteLength;
        if (size > maxBytes) throw tooLarge(maxBytes);
        hash.update(chunk);
        await handle.write(chunk);
      }
      throwIfAborted(signal, 'artifact put');
      if (fsync) await handle.sync();
    } catch (error) {
      await handle.close();
      await rm(tmp, { force: true });
      throw error;
    }
    await handle.close();
    return { sha256: hash.digest('hex'), size, tmp };
  };

  /** Moves a received temp file into place unless an intact copy is already there. */
  const settle = async (sha256: string, size: number, tmp: string): Promise<void> => {
    const path = blobPath(sha256);
    const existing = await stat(path).catch(() => undefined);
    if (existing?.size === size) {
      await rm(tmp, { force: true });
      return;
    }
    await mkdir(join(path, '..'), { recursive: true });
    await chmod(tmp, 0o444);
    await rename(tmp, path);
  };

  const verifyBytes = (sha256: string, bytes: Uint8Array): Uint8Array => {
    const actual = createHash('sha256').update(bytes).digest('hex');
    if (actual !== sha256) throw artifactCorrupt(sha256, actual);
    return bytes;
  };

  return {
    async start(): Promise<void> {
      await mkdir(blobDir, { recursive: true });
      await mkdir(nameDir, { recursive: true });
      await mkdir(tmpDir, { recursive: true });
      running = true;
    },
    stop(): Promise<void> {
      running = false;
      return Promise.resolve();
    },
    async put(content: ArtifactContent, options: ArtifactPutOptions = {}): Promise<ArtifactRef> {
      ensureRunning();
      throwIfAborted(options.signal, 'artifact put');
      const name = options.uri;
      const loc = name === undefined ? undefined : parseArtifactRef(parseUriFirst(name));
      const { sha256, size, tmp } = await receive(content, options.signal);
      if (loc?.kind === 'hash' && loc.sha256 !== sha256) {
        await rm(tmp, { force: true });
        throw contentUriMismatch(name ?? '', sha256);
      }
      await settle(sha256, size, tmp);
      if (loc?.kind === 'name') {
        await bind({ uri: loc.uri, sha256, size });
        return { sha256, size, uri: loc.uri };
      }
      return { sha256, size, uri: contentUri(sha256) };
    },
    async get(ref: string, options: ArtifactReadOptions = {}): Promise<Uint8Array> {
      ensureRunning();
      throwIfAborted(options.signal, 'artifact read');
      const found = await resolve(ref);
      if (found === undefined) throw artifactNotFound(ref);
      let bytes: Buffer;
      try {
        bytes =
          options.signal === undefined
            ? await readFile(blobPath(found.sha256))
            : await readFile(blobPath(found.sha256), { signal: options.signal });
      } catch (error) {
        if (isErrno(error, 'ENOENT')) throw artifactNotFound(ref);
        throwIfAborted(options.signal, 'artifact read');
        throw new PlexusError('INTERNAL', `cannot read artifact ${found.sha256}`, { cause: error });
      }
      return verifyBytes(found.sha256, new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength));
    },
    async *stream(ref: string, options: ArtifactReadOptions = {}): AsyncIterable<Uint8Array> {
      ensureRunning();
      throwIfAborted(options.signal, 'artifact read');
      const found = await resolve(ref);
      if (found === undefined) throw artifactNotFound(ref);
      const hash = createHash('sha256');
      const input = createReadStream(blobPath(found.sha256), { highWaterMark: 64 * 1024 });
      try {
        for await (const chunk of input as AsyncIterable<Buffer>) {
          throwIfAborted(options.signal, 'artifact read');
          hash.update(chunk);
          yield new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength);
        }
      } catch (error) {
        if (isErrno(error, 'ENOENT')) throw artifactNotFound(ref);
        throw error;
      } finally {
        input.destroy();
      }
      const actual = hash.digest('hex');
      if (actual !== found.sha256) throw artifactCorrupt(found.sha256, actual);
    },
    async stat(ref: string, options: ArtifactReadOptions = {}): Promise<ArtifactRef | undefined> {
      ensureRunning();
      throwIfAborted(options.signal, 'artifact stat');
      const found = await resolve(ref);
      if (found === undefined) return undefined;
      const info = await stat(blobPath(found.sha256)).catch(() => undefined);
      return info === undefined ? undefined : { sha256: found.sha256, size: info.size, uri: found.uri };
    },
    async exists(ref: string, options: ArtifactReadOptions = {}): Promise<boolean> {
      return (await this.stat(ref, options)) !== undefined;
    },
  };
}

/** Validates `uri` as a workspace URI first, so a bare digest is not accepted as a name. */
function parseUriFirst(uri: string): string {
  parseWorkspaceUri(uri);
  return uri;
}
