import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import {
  generateApiKey,
  generateKeyPair,
  identityFromPublicKey,
  rpcDomain,
  signEnvelope,
} from '../../src/security/index.js';
import { built, cleanup, exitOf, startNodeProcess, tempDir } from '../e2e/harness.js';
import { join } from 'node:path';

// Issue 11 item 1: the replay cache of signed envelopes lived in memory only, so an envelope a
// node had already run was accepted again after a restart. A node now refuses every envelope
// signed before it started (docs/decisions/peer-trust.md); a fresh one from the same trusted
// peer keeps working.

const peerKey = generateKeyPair();
const peerDid = identityFromPublicKey(peerKey.publicKey).did;
const apiKey = generateApiKey();
const CONFIG = `auth:\n  apiKeys:\n    - { hash: ${apiKey.hash}, subject: ops }\n  trustedPeers: [${peerDid}]\n`;

afterAll(cleanup);

function signedEcho(text: string): string {
  const d = {
    id: randomUUID(),
    kind: 'request',
    from: peerDid,
    to: 'echo',
    verb: 'echo.echo',
    data: { text },
  };
  return JSON.stringify(signEnvelope(d, { key: peerKey, domain: rpcDomain('echo.echo') }));
}

async function invoke(url: string, body: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${url}/v1/peer/invoke`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body,
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

describe('a signed peer envelope after a node restart', () => {
  it('is refused when it was signed (and run) before the restart; a fresh one still runs', async () => {
    if (!built()) throw new Error('dist/ is missing: build first (npm run build)');
    const dataDir = join(tempDir(), 'data');
    const first = await startNodeProcess({ dataDir, flags: ['--demo'], config: CONFIG });
    const captured = signedEcho('once');
    const ran = await invoke(first.url, captured);
    expect(ran.status).toBe(200);
    expect(ran.body).toMatchObject({ kind: 'response', data: { text: 'once' } });
    expect((await invoke(first.url, captured)).status).toBe(401); // the replay cache, before the restart

    first.child.kill('SIGKILL'); // a crash: nothing could be flushed on the way out
    await exitOf(first);
    const second = await startNodeProcess({ dataDir, flags: ['--demo'], config: CONFIG });
    const replayed = await invoke(second.url, captured);
    expect(replayed.status).toBe(401);
    expect(replayed.body).toMatchObject({
      status: 'failed',
      error: { details: { plexus_code: 'SIGNATURE_EXPIRED', field: 'ts' } },
    });

    const fresh = await invoke(second.url, signedEcho('again'));
    expect(fresh.status).toBe(200);
    expect(fresh.body).toMatchObject({ kind: 'response', data: { text: 'again' } });
  }, 60_000);
});
