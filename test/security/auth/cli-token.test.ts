import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueTokenForCli } from '../../../src/security/auth/cli-token.js';
import { tokenVerifier } from '../../../src/security/auth/jwt-verifier.js';
import { writeKeyFile } from '../../../src/security/key-file.js';
import { expectPlexusErrorAsync } from '../expect-error.js';
import { NODE_DID, T0, nodeKey } from './tokens.js';

let dir: string;
let keyFile: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'plexus-auth-'));
  keyFile = join(dir, 'node.key');
  await writeKeyFile(keyFile, nodeKey);
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('issueTokenForCli', () => {
  it('issues a token with the key file that the node accepts', async () => {
    const issued = await issueTokenForCli({
      keyFile,
      subject: 'alice',
      ttl: '8h',
      scopes: 'jobs:read agents:read',
      tenant: 'acme',
      now: () => T0,
    });
    expect(issued).toMatchObject({ issuer: NODE_DID, audience: [NODE_DID], expiresAt: T0 + 8 * 3600_000 });
    const principal = await tokenVerifier({ issuerKeys: [nodeKey], now: () => T0 }).verify(issued.token);
    expect(principal).toMatchObject({ id: 'alice', scopes: ['jobs:read', 'agents:read'], tenant: 'acme' });
  });

  it('issues for another audience when told', async () => {
    const issued = await issueTokenForCli({ keyFile, subject: 'alice', audience: 'https://node.example' });
    expect(issued.audience).toEqual(['https://node.example']);
  });

  it('reports a missing key file', async () => {
    await expectPlexusErrorAsync(
      () => issueTokenForCli({ keyFile: join(dir, 'none.key'), subject: 'a' }),
      'NOT_FOUND',
    );
  });

  it.runIf(process.platform !== 'win32')('refuses a key file others can read unless allowed', async () => {
    const loose = join(dir, 'loose.key');
    await writeKeyFile(loose, nodeKey);
    await chmod(loose, 0o644);
    await expectPlexusErrorAsync(() => issueTokenForCli({ keyFile: loose, subject: 'a' }), 'FORBIDDEN');
    await expect(
      issueTokenForCli({ keyFile: loose, subject: 'a', allowInsecurePermissions: true }),
    ).resolves.toMatchObject({
      subject: 'a',
    });
  });

  it('refuses a bad lifetime', async () => {
    await expectPlexusErrorAsync(
      () => issueTokenForCli({ keyFile, subject: 'a', ttl: 'forever' }),
      'INVALID_PARAMS',
    );
  });
});
