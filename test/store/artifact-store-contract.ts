import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PlexusError } from '../../src/core/errors.js';
import type { ArtifactStore } from '../../src/store/index.js';

/** What a contract run needs from one implementation. */
export interface ArtifactHarness {
  readonly store: ArtifactStore;
  /** Overwrites the stored bytes of `sha256` behind the store's back. */
  corrupt(sha256: string, bytes: Uint8Array): Promise<void>;
  cleanup(): Promise<void>;
}

const text = (s: string): Uint8Array => new TextEncoder().encode(s);
const hex = (b: Uint8Array): string => createHash('sha256').update(b).digest('hex');

async function collect(it: AsyncIterable<Uint8Array>): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  for await (const p of it) parts.push(p);
  return new Uint8Array(Buffer.concat(parts));
}

async function code(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (error) {
    expect(error).toBeInstanceOf(PlexusError);
    return (error as PlexusError).code;
  }
  return 'no error';
}

/** The one contract every artifact store passes. */
export function runArtifactStoreContract(
  name: string,
  factory: (init?: { maxBytes?: number }) => Promise<ArtifactHarness>,
): void {
  describe(`ArtifactStore contract: ${name}`, () => {
    let h: ArtifactHarness;
    beforeEach(async () => {
      h = await factory();
    });
    afterEach(async () => {
      await h.store.stop();
      await h.cleanup();
    });

    it('puts bytes and returns their sha256, size and content URI', async () => {
      const bytes = text('hello artifact');
      const ref = await h.store.put(bytes);
      expect(ref).toEqual({
        sha256: hex(bytes),
        size: bytes.byteLength,
        uri: `workspace://artifacts/sha256/${hex(bytes)}`,
      });
      expect(await h.store.get(ref.sha256)).toEqual(bytes);
      expect(await h.store.get(ref.uri)).toEqual(bytes);
      expect(await h.store.get(ref.sha256.toUpperCase())).toEqual(bytes);
    });

    it('puts a stream of chunks and gets the same content as from bytes', async () => {
      const chunks = [text('a'.repeat(70_000)), text('b'.repeat(5)), new Uint8Array(0), text('c')];
      const whole = new Uint8Array(Buffer.concat(chunks));
      const ref = await h.store.put(Readable.from(chunks));
      expect(ref.sha256).toBe(hex(whole));
      expect(ref.size).toBe(whole.byteLength);
      expect(await collect(h.store.stream(ref.sha256))).toEqual(whole);
    });

    it('stores empty content', async () => {
      const ref = await h.store.put(new Uint8Array(0));
      expect(ref.size).toBe(0);
      expect((await h.store.get(ref.sha256)).byteLength).toBe(0);
      expect((await collect(h.store.stream(ref.uri))).byteLength).toBe(0);
    });

    it('is idempotent: the same bytes twice give the same ref', async () => {
      const a = await h.store.put(text('same'));
      const b = await h.store.put(Readable.from([text('sa'), text('me')]));
      expect(b).toEqual(a);
    });

    it('binds a workspace name and resolves it', async () => {
      const uri = 'workspace://artifacts/audio_550e8400.wav';
      const bytes = text('RIFF....WAVE');
      const ref = await h.store.put(bytes, { uri });
      expect(ref).toEqual({ sha256: hex(bytes), size: bytes.byteLength, uri });
      expect(await h.store.get(uri)).toEqual(bytes);
      expect(await h.store.stat(uri)).toEqual(ref);
      expect(await h.store.exists(uri)).toBe(true);
      // rebinding the same name to the same content is a no-op
      expect(await h.store.put(bytes, { uri })).toEqual(ref);
    });

    it('refuses to rebind a name to other content', async () => {
      const uri = 'workspace://artifacts/out.txt';
      await h.store.put(text('one'), { uri });
      expect(await code(h.store.put(text('two'), { uri }))).toBe('CONFLICT');
      expect(await h.store.get(uri)).toEqual(text('one'));
    });

    it('accepts a content URI as name only for matching content', async () => {
      const bytes = text('x');
      const uri = `workspace://artifacts/sha256/${hex(bytes)}`;
      expect((await h.store.put(bytes, { uri })).uri).toBe(uri);
      expect(await code(h.store.put(text('y'), { uri }))).toBe('INVALID_PARAMS');
    });

    it('reports absent artifacts', async () => {
      const missing = hex(text('never stored'));
      expect(await h.store.exists(missing)).toBe(false);
      expect(await h.store.stat('workspace://nope/x')).toBeUndefined();
      expect(await code(h.store.get(missing))).toBe('NOT_FOUND');
      expect(await code(h.store.get('workspace://nope/x'))).toBe('NOT_FOUND');
      expect(await code(collect(h.store.stream(missing)))).toBe('NOT_FOUND');
    });

    it('detects corrupted content on get and on stream', async () => {
      const ref = await h.store.put(text('precious'), { uri: 'workspace://a/b' });
      await h.corrupt(ref.sha256, text('tampered'));
      expect(await code(h.store.get(ref.sha256))).toBe('INTERNAL');
      await expect(h.store.get('workspace://a/b')).rejects.toThrow(/corrupt/);
      expect(await code(collect(h.store.stream(ref.sha256)))).toBe('INTERNAL');
    });

    it.each([
      ['workspace://../etc/passwd', /\.\. segment/],
      ['workspace://a/../b', /\.\. segment/],
      ['workspace:///etc/passwd', /absolute/],
      ['workspace://C:/x', /drive letter/],
      ['workspace://a\\b', /backslash/],
      ['workspace://a\u0000b', /NUL/],
      ['workspace://a//b', /empty path segment/],
      ['workspace://a/', /empty path segment/],
      ['workspace://', /path is empty/],
      ['workspace://a/./b', /\. segment/],
      ['workspace://a\nb', /control character/],
      ['workspace://a?x=1', /query or fragment/],
      ['file:///etc/passwd', /workspace:\/\//],
      ['WORKSPACE://a', /workspace:\/\//],
      [`workspace://${'a'.repeat(1100)}`, /longer than/],
    ])('rejects the bad name %j on put', async (uri, why) => {
      const error = await h.store.put(text('x'), { uri }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(PlexusError);
      expect((error as PlexusError).code).toBe('INVALID_PARAMS');
      expect((error as PlexusError).message).toMatch(why);
    });

    it('rejects malformed refs on read', async () => {
      expect(await code(h.store.get('abc'))).toBe('INVALID_PARAMS');
      expect(await code(h.store.get('workspace://a/../b'))).toBe('INVALID_PARAMS');
      expect(await code(h.store.get('workspace://artifacts/sha256/xyz'))).toBe('INVALID_PARAMS');
      expect(await code(h.store.exists('/etc/passwd'))).toBe('INVALID_PARAMS');
    });

    it('rejects non-byte content', async () => {
      expect(await code(h.store.put('text' as unknown as Uint8Array))).toBe('INVALID_PARAMS');
      expect(await code(h.store.put(Readable.from(['a string chunk'])))).toBe('INVALID_PARAMS');
    });

    it('honours an aborted signal', async () => {
      const ac = new AbortController();
      ac.abort();
      expect(await code(h.store.put(text('x'), { signal: ac.signal }))).toBe('CANCELLED');
      const ref = await h.store.put(text('y'));
      expect(await code(h.store.get(ref.sha256, { signal: ac.signal }))).toBe('CANCELLED');
    });

    it('aborts a streamed put midway and leaves nothing behind', async () => {
      const ac = new AbortController();
      async function* chunks(): AsyncIterable<Uint8Array> {
        yield text('first');
        ac.abort();
        await Promise.resolve();
        yield text('second');
      }
      expect(await code(h.store.put(chunks(), { signal: ac.signal }))).toBe('CANCELLED');
      expect(await h.store.exists(hex(text('firstsecond')))).toBe(false);
    });

    it('rejects content beyond maxBytes and keeps nothing of it', async () => {
      const small = await factory({ maxBytes: 10 });
      try {
        expect((await small.store.put(text('0123456789'))).size).toBe(10);
        expect(await code(small.store.put(text('0123456789A')))).toBe('INPUT_TOO_LARGE');
        expect(await code(small.store.put(Readable.from([text('012345'), text('6789AB')])))).toBe(
          'INPUT_TOO_LARGE',
        );
        expect(await small.store.exists(hex(text('0123456789A')))).toBe(false);
      } finally {
        await small.store.stop();
        await small.cleanup();
      }
    });

    it('rejects calls after stop, and stop is safe twice', async () => {
      await h.store.stop();
      await h.store.stop();
      expect(await code(h.store.put(text('x')))).toBe('UNAVAILABLE');
      expect(await code(h.store.get(hex(text('x'))))).toBe('UNAVAILABLE');
      await h.store.start();
      expect((await h.store.put(text('x'))).size).toBe(1);
    });
  });
}
