import { chmod, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateKeyPair, keyPairFromSeed } from '../../src/security/ed25519.js';
import { identityFromPublicKey } from '../../src/security/identity.js';
import {
  KEY_FILE_FORMAT,
  encodeKeyFile,
  parseKeyFile,
  readKeyFile,
  writeKeyFile,
} from '../../src/security/key-file.js';
import { expectPlexusError, expectPlexusErrorAsync } from './expect-error.js';

const posix = process.platform !== 'win32';
let dir: string;
let n = 0;
const fresh = () => join(dir, `key-${n++}.json`);

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'plexus-keys-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('encodeKeyFile / parseKeyFile', () => {
  const key = keyPairFromSeed('9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60');
  const text = encodeKeyFile(key);
  const obj = JSON.parse(text) as Record<string, unknown>;

  it('writes the documented fields', () => {
    expect(obj).toEqual({
      format: KEY_FILE_FORMAT,
      version: 1,
      did: 'did:key:z6MktwupdmLXVVqTzCw4i46r4uGyosGXRnR3XjN4Zq7oMMsw',
      peerId: identityFromPublicKey(key.publicKey).peerId,
      publicKey: '11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo',
      secretKey: Buffer.from(key.secretKey).toString('base64url'),
    });
    expect(text.endsWith('\n')).toBe(true);
  });

  it('parses back to the same key', () => {
    const parsed = parseKeyFile(text);
    expect(parsed.key.publicKey).toEqual(key.publicKey);
    expect(parsed.key.secretKey).toEqual(key.secretKey);
    expect(parsed.identity.did).toBe(obj.did);
  });

  const other = identityFromPublicKey(generateKeyPair().publicKey);
  const edit = (patch: Record<string, unknown>) => JSON.stringify({ ...obj, ...patch });
  const drop = (field: string) =>
    JSON.stringify(Object.fromEntries(Object.entries(obj).filter(([k]) => k !== field)));
  const cases: [string, string, 'PARSE_ERROR' | 'INVALID_PARAMS' | 'INVALID_SEMANTIC', RegExp][] = [
    ['text that is not JSON', '{"format":', 'PARSE_ERROR', /not valid JSON/],
    ['a JSON array', '[]', 'INVALID_PARAMS', /JSON object/],
    ['a missing secretKey', drop('secretKey'), 'INVALID_PARAMS', /missing the field "secretKey"/],
    ['a missing did', drop('did'), 'INVALID_PARAMS', /missing the field "did"/],
    ['an unknown field', edit({ comment: 'hi' }), 'INVALID_PARAMS', /unknown field "comment"/],
    ['another format', edit({ format: 'ssh-ed25519' }), 'INVALID_PARAMS', /"format"/],
    ['another version', edit({ version: 2 }), 'INVALID_PARAMS', /"version"/],
    [
      'a secretKey of 31 bytes',
      edit({ secretKey: Buffer.alloc(31).toString('base64url') }),
      'INVALID_PARAMS',
      /secretKey/,
    ],
    [
      'a secretKey in hex',
      edit({ secretKey: Buffer.from(key.secretKey).toString('hex') }),
      'INVALID_PARAMS',
      /secretKey/,
    ],
    [
      'a publicKey of another key',
      edit({ publicKey: other.publicKeyBase64Url }),
      'INVALID_SEMANTIC',
      /"publicKey"/,
    ],
    ['a did of another key', edit({ did: other.did }), 'INVALID_SEMANTIC', /"did"/],
    ['a peerId of another key', edit({ peerId: other.peerId }), 'INVALID_SEMANTIC', /"peerId"/],
    ['a did that is a number', edit({ did: 5 }), 'INVALID_PARAMS', /"did"/],
  ];
  for (const [what, bad, code, message] of cases) {
    it(`rejects ${what} with ${code}`, () => {
      const e = expectPlexusError(() => parseKeyFile(bad, 'agent.key'), code);
      expect(e.message).toMatch(/^key file agent\.key/);
      expect(e.message).toMatch(message);
    });
  }
});

describe('writeKeyFile / readKeyFile', () => {
  it('writes a 0600 file that reads back as the same key', async () => {
    const path = fresh();
    const key = generateKeyPair();
    await writeKeyFile(path, key);
    if (posix) expect((await stat(path)).mode & 0o777).toBe(0o600);
    const read = await readKeyFile(path);
    expect(read.key.publicKey).toEqual(key.publicKey);
    expect(read.key.secretKey).toEqual(key.secretKey);
    expect(read.insecurePermissions).toBe(false);
    if (posix) expect(read.mode).toBe(0o600);
  });

  it('creates missing parent directories', async () => {
    const path = join(dir, 'nested', 'deeper', 'agent.key');
    await writeKeyFile(path, generateKeyPair());
    expect((await readKeyFile(path)).identity.did).toMatch(/^did:key:z6Mk/);
  });

  it('refuses to overwrite an existing file (CONFLICT) and leaves it intact', async () => {
    const path = fresh();
    const first = generateKeyPair();
    await writeKeyFile(path, first);
    await expectPlexusErrorAsync(() => writeKeyFile(path, generateKeyPair()), 'CONFLICT');
    expect((await readKeyFile(path)).key.publicKey).toEqual(first.publicKey);
  });

  it('replaces an existing file with overwrite, keeping mode 0600 and leaving no temporary file', async () => {
    const path = join(dir, 'over', 'agent.key');
    await writeKeyFile(path, generateKeyPair());
    const second = generateKeyPair();
    await writeKeyFile(path, second, { overwrite: true });
    expect((await readKeyFile(path)).key.publicKey).toEqual(second.publicKey);
    if (posix) expect((await stat(path)).mode & 0o777).toBe(0o600);
    const { readdir } = await import('node:fs/promises');
    expect(await readdir(join(dir, 'over'))).toEqual(['agent.key']);
  });

  it.skipIf(!posix)(
    'refuses a file group or others can read (FORBIDDEN), unless allowed, and then flags it',
    async () => {
      const path = fresh();
      await writeKeyFile(path, generateKeyPair());
      await chmod(path, 0o644);
      const e = await expectPlexusErrorAsync(() => readKeyFile(path), 'FORBIDDEN');
      expect(e.message).toMatch(/mode 0644/);
      expect(e.message).toMatch(/chmod 600/);
      const read = await readKeyFile(path, { allowInsecurePermissions: true });
      expect(read.insecurePermissions).toBe(true);
      expect(read.mode).toBe(0o644);
      await chmod(path, 0o620);
      await expectPlexusErrorAsync(() => readKeyFile(path), 'FORBIDDEN');
    },
  );

  it('is NOT_FOUND for a missing file', async () => {
    await expectPlexusErrorAsync(() => readKeyFile(join(dir, 'absent.key')), 'NOT_FOUND');
  });

  it('rejects a directory', async () => {
    await expectPlexusErrorAsync(
      () => readKeyFile(dir, { allowInsecurePermissions: true }),
      'INVALID_PARAMS',
    );
  });

  it('gives a clear error for a malformed file on disk', async () => {
    const path = fresh();
    await writeFile(path, '{"format":"plexus-ed25519-key"}', { mode: 0o600 });
    const e = await expectPlexusErrorAsync(() => readKeyFile(path), 'INVALID_PARAMS');
    expect(e.message).toContain(path);
    await writeFile(path, 'not json', { mode: 0o600 });
    await expectPlexusErrorAsync(() => readKeyFile(path), 'PARSE_ERROR');
  });

  it('is CANCELLED when the signal is already aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    await expectPlexusErrorAsync(() => readKeyFile(fresh(), { signal: controller.signal }), 'CANCELLED');
    const path = fresh();
    await expectPlexusErrorAsync(
      () => writeKeyFile(path, generateKeyPair(), { signal: controller.signal }),
      'CANCELLED',
    );
    await expect(readFile(path)).rejects.toThrow();
  });
});
