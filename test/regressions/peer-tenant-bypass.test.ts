import { randomUUID } from 'node:crypto';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JsonValue } from '../../src/core/json.js';
import {
  generateKeyPair,
  identityFromPublicKey,
  rpcDomain,
  signEnvelope,
  type Ed25519KeyPair,
} from '../../src/security/index.js';
import { built, cleanup, startNodeProcess, tenantKeys, type NodeProcess } from '../e2e/harness.js';

// Issue 11 item 1: on a node with auth on and no auth.trustedPeers, a bearer of tenant B plus
// an envelope signed by a freshly generated key claiming tenant A ran as tenant A on
// POST /v1/peer/invoke (state.get_state returned A's secret). It must be 403, in the ESRP
// error form, and nothing of A's may come back. A configured trusted peer keeps working, but
// a tenant-bound bearer it presents binds the call's tenant.

const { acme, globex, config: KEYS } = tenantKeys();
const trustedKey = generateKeyPair();
const trustedDid = identityFromPublicKey(trustedKey.publicKey).did;
/** No auth.trustedPeers (the default): the node of the report. */
let plain: NodeProcess;
/** The same, with one trusted peer. */
let guarded: NodeProcess;
const sessions = new Map<NodeProcess, string>();

beforeAll(async () => {
  if (!built()) throw new Error('dist/ is missing: build first (npm run build)');
  // No --dev: auth is on.
  [plain, guarded] = await Promise.all([
    startNodeProcess({ flags: ['--demo'], config: KEYS }),
    startNodeProcess({ flags: ['--demo'], config: `${KEYS}  trustedPeers: [${trustedDid}]\n` }),
  ]);
  for (const node of [plain, guarded]) sessions.set(node, await keepSecret(node));
}, 30_000);

/** Tenant acme keeps a secret in a state session, over the WebSocket face; returns the session id. */
async function keepSecret(node: NodeProcess): Promise<string> {
  const ws = new WebSocket(`${node.url.replace(/^http/, 'ws')}/rpc`, {
    headers: { authorization: `Bearer ${acme.key}` },
  });
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => {
      resolve();
    });
    ws.once('error', reject);
  });
  const call = (id: number, method: string, params: unknown): Promise<Record<string, unknown>> =>
    new Promise((resolve) => {
      ws.on('message', (data: Buffer) => {
        const answer = JSON.parse(data.toString('utf8')) as { id: number; result: Record<string, unknown> };
        if (answer.id === id) resolve(answer.result);
      });
      ws.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
    });
  try {
    const sessionId = (await call(1, 'state.createSession', { agentName: 'acme-agent' }))['sessionId'];
    expect(typeof sessionId).toBe('string');
    await call(2, 'state.setState', { sessionId, key: 'plan', value: 'acme-secret' });
    return sessionId as string;
  } finally {
    ws.terminate();
  }
}

afterAll(cleanup);

function signed(key: Ed25519KeyPair, verb: string, data: JsonValue, tenantId = 'acme'): JsonValue {
  const d = {
    id: randomUUID(),
    kind: 'request',
    from: 'did:example:x',
    to: `capability:${verb}`,
    verb,
    data,
    tenantId,
  };
  return signEnvelope(d, { key, domain: rpcDomain(verb) }) as unknown as JsonValue;
}

async function invoke(
  node: NodeProcess,
  body: JsonValue,
  bearer?: string,
): Promise<{ status: number; text: string }> {
  const response = await fetch(`${node.url}/v1/peer/invoke`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(bearer === undefined ? {} : { authorization: `Bearer ${bearer}` }),
    },
    body: JSON.stringify(body),
  });
  return { status: response.status, text: await response.text() };
}

describe('POST /v1/peer/invoke on a node with auth on', () => {
  it("refuses tenant B's bearer with a fresh key claiming tenant A: 403, ESRP form, nothing of A's", async () => {
    const sessionId = sessions.get(plain)!;
    for (const verb of ['state.get_state', 'state.get_session']) {
      const res = await invoke(
        plain,
        signed(generateKeyPair(), verb, { sessionId, key: 'plan' }),
        globex.key,
      );
      expect(res.status, res.text).toBe(403);
      const body = JSON.parse(res.text) as { status: string; error: { code: string; details: object } };
      expect(body.status).toBe('failed');
      expect(body.error).toMatchObject({
        code: 'INVALID_INPUT_SEMANTIC',
        details: { plexus_code: 'FORBIDDEN' },
      });
      expect(res.text).not.toContain('acme-secret');
      expect(res.text).not.toContain(sessionId);
    }
  });

  it('refuses a fresh key without any bearer, and with a bearer of the claimed tenant itself', async () => {
    const sessionId = sessions.get(plain)!;
    const bare = await invoke(
      plain,
      signed(generateKeyPair(), 'state.get_state', { sessionId, key: 'plan' }),
    );
    expect(bare.status).toBe(403);
    const own = await invoke(
      plain,
      signed(generateKeyPair(), 'state.get_state', { sessionId, key: 'plan' }),
      acme.key,
    );
    expect(own.status).toBe(403);
    expect(own.text).not.toContain('acme-secret');
  });

  it('refuses a fresh key on a node with trusted peers too', async () => {
    const sessionId = sessions.get(guarded)!;
    const res = await invoke(
      guarded,
      signed(generateKeyPair(), 'state.get_state', { sessionId, key: 'plan' }),
      globex.key,
    );
    expect(res.status).toBe(403);
    expect(res.text).not.toContain('acme-secret');
  });

  it('admits a trusted peer relaying for the tenant it names', async () => {
    const sessionId = sessions.get(guarded)!;
    const res = await invoke(guarded, signed(trustedKey, 'state.get_state', { sessionId, key: 'plan' }));
    expect(res.status, res.text).toBe(200);
    expect(JSON.parse(res.text)).toMatchObject({ kind: 'response', data: { value: 'acme-secret' } });
  });

  it("binds a trusted peer's call to the tenant of the bearer it presents", async () => {
    const sessionId = sessions.get(guarded)!;
    const res = await invoke(
      guarded,
      signed(trustedKey, 'state.get_state', { sessionId, key: 'plan' }),
      globex.key,
    );
    expect(res.text).not.toContain('acme-secret');
    expect(JSON.parse(res.text)).toMatchObject({ kind: 'error', data: { code: 'FORBIDDEN' } });
  });
});
