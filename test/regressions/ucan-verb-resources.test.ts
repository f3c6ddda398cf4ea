// Issue 11, item 2: with capability checks on, a UCAN must cover the verb it is used for
// (a capability on `agentese:verb/<verb>` or a pattern covering it) besides the scopes and
// effects the verb declares, and every built-in verb declares them. Before, a chain granting
// only `agentese:verb/echo.echo` ran `math.evaluate` (200) and reached `guard.consume_budget`'s
// handler. A real node on 127.0.0.1, real chains, the ESRP and WebSocket JSON-RPC faces.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createNode, type Node } from '../../src/node/index.js';
import { GUARD_EVENTS } from '../../src/primitives/guard/index.js';
import { generateApiKey } from '../../src/security/auth/api-keys.js';
import { keyPairFromSeed, type Ed25519KeyPair } from '../../src/security/ed25519.js';
import { identityFromPublicKey } from '../../src/security/identity.js';
import { signUcan, type Capabilities } from '../../src/security/ucan/index.js';

interface Party {
  readonly key: Ed25519KeyPair;
  readonly did: string;
}
const party = (seed: string): Party => {
  const key = keyPairFromSeed(seed.repeat(32));
  return { key, did: identityFromPublicKey(key.publicKey).did };
};
const owner = party('2a');
const alice = party('2b');

const ECHO_ONLY: Capabilities = { 'agentese:verb/echo.echo': { '*': [{}] } };
const EVERYTHING: Capabilities = { 'agentese:*': { '*': [{}] } };

const apiKey = generateApiKey();
let node: Node;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'plexus-verbres-'));
  node = createNode({
    dataDir: dir,
    port: 0,
    demo: true,
    primitives: ['state', 'guard'],
    apiKeys: [{ hash: apiKey.hash, subject: 'ci' }],
    capabilities: { enabled: true, roots: [owner.did] },
  });
  await node.start();
});

afterAll(async () => {
  await node.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** owner → alice granting `cap`; alice → the node claiming the same: the container alice presents. */
function chain(cap: Capabilities): { leaf: string; root: string; container: string } {
  const root = signUcan({ key: owner.key, audience: alice.did, capabilities: cap });
  const leaf = signUcan({
    key: alice.key,
    audience: node.nodeId,
    capabilities: cap,
    proofs: [root.cid],
    ttl: 600,
  });
  return { leaf: leaf.jwt, root: root.jwt, container: `${leaf.jwt},${root.jwt}` };
}

interface EsrpReply {
  status: number;
  body: { status: string; error?: { code: string; message: string; details?: Record<string, unknown> } };
}

async function esrp(
  cap: Capabilities,
  service: string,
  operation: string,
  input: unknown,
): Promise<EsrpReply> {
  const c = chain(cap);
  const response = await fetch(`${node.url}/v1/execute`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${c.leaf}`, ucans: c.root },
    body: JSON.stringify({
      esrp_version: '1.0',
      request_id: randomUUID(),
      idempotency_key: randomUUID(),
      timestamp: new Date().toISOString(),
      caller: { system: 'test' },
      target: { service, operation },
      mode: { type: 'sync', timeout_ms: 10000 },
      inputs: [
        {
          name: 'input',
          content_type: 'application/json',
          data: JSON.stringify(input),
          encoding: 'utf-8',
          metadata: null,
        },
      ],
      params: null,
    }),
  });
  return { status: response.status, body: (await response.json()) as EsrpReply['body'] };
}

interface RpcReply {
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: Record<string, unknown> };
}

/** Opens a WebSocket JSON-RPC connection with an API key; each call carries its own `_x_capability`. */
async function rpc(): Promise<{
  call(method: string, params: object, cap: Capabilities): Promise<RpcReply>;
  close(): void;
}> {
  const ws = new WebSocket(`${node.url.replace('http', 'ws')}/rpc`, {
    headers: { authorization: `Bearer ${apiKey.key}` },
  });
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => {
      resolve();
    });
    ws.once('error', reject);
  });
  let next = 0;
  const pending = new Map<number, (reply: RpcReply) => void>();
  ws.on('message', (raw: Buffer) => {
    const msg = JSON.parse(raw.toString()) as RpcReply & { id?: number };
    if (typeof msg.id === 'number') pending.get(msg.id)?.(msg);
  });
  return {
    call: (method, params, cap) =>
      new Promise((resolve) => {
        const id = ++next;
        pending.set(id, resolve);
        const withCap = { ...params, _x_capability: chain(cap).container };
        ws.send(JSON.stringify({ jsonrpc: '2.0', id, method, params: withCap }));
      }),
    close: () => {
      ws.close();
    },
  };
}

describe('a UCAN must cover the verb it is used for (issue 11 item 2)', () => {
  it('refuses math.evaluate with a chain granting only agentese:verb/echo.echo (403), and runs echo.echo with it', async () => {
    const refused = await esrp(ECHO_ONLY, 'math', 'evaluate', { expression: '1 + 1' });
    expect(refused.status, JSON.stringify(refused.body)).toBe(403);
    expect(refused.body.status).toBe('failed');
    expect(refused.body.error?.details?.['plexus_code']).toBe('FORBIDDEN');
    expect(refused.body.error?.details?.['reason']).toBe('missing-verb');
    expect(refused.body.error?.message).toContain('math.evaluate');
    const echoed = await esrp(ECHO_ONLY, 'echo', 'echo', { hello: 'world' });
    expect(echoed.status, JSON.stringify(echoed.body)).toBe(200);
    // a family pattern covers its verbs only; the declared scope is needed besides
    expect(
      (await esrp({ 'agentese:verb/math.*': { 'math/read': [{}] } }, 'math', 'evaluate', { expression: '2' }))
        .status,
    ).toBe(200);
    const noScope = await esrp({ 'agentese:verb/math.*': { 'echo/read': [{}] } }, 'math', 'evaluate', {
      expression: '2',
    });
    expect(noScope.status).toBe(403);
    expect(noScope.body.error?.details?.['reason']).toBe('missing-scope');
    expect(noScope.body.error?.details?.['scope']).toBe('math:read');
  });

  it("never runs guard.consume_budget's handler for a chain that does not cover it", async () => {
    const client = await rpc();
    try {
      const created = await client.call('state.createSession', { budget: 5 }, EVERYTHING);
      const sessionId = created.result?.['sessionId'] as string;
      expect(typeof sessionId, JSON.stringify(created)).toBe('string');
      const consume = { sessionId, amount: 1 };

      const echoOnly = await client.call('guard.consumeBudget', consume, ECHO_ONLY);
      expect(echoOnly.result).toBeUndefined();
      expect(echoOnly.error?.message, JSON.stringify(echoOnly)).toContain('guard.consume_budget');
      expect(JSON.stringify(echoOnly.error)).toContain('missing-verb');

      // covers the verb, but not the declared scope guard:write, then not the declared effects
      const verbOnly = await client.call('guard.consumeBudget', consume, {
        'agentese:verb/guard.*': { 'guard/read': [{}] },
      });
      expect(JSON.stringify(verbOnly.error)).toContain('missing-scope');
      const noEffects = await client.call('guard.consumeBudget', consume, {
        'agentese:verb/guard.consume_budget': { 'guard/write': [{}] },
      });
      expect(JSON.stringify(noEffects.error)).toContain('missing-effect');

      expect(await node.log.read({ type: GUARD_EVENTS.budgetConsumed })).toEqual([]);
      const status = await client.call('guard.getBudgetStatus', { sessionId }, EVERYTHING);
      expect(status.result?.['consumed']).toBe(0);

      // exactly what the verb declares is enough
      const exact = await client.call('guard.consumeBudget', consume, {
        'agentese:verb/guard.consume_budget': { 'guard/write': [{}] },
        'agentese:state/sessions': { 'effect/reads': [{}] },
        'agentese:guard/budgets': { 'effect/writes': [{}] },
      });
      expect(exact.error, JSON.stringify(exact.error)).toBeUndefined();
      expect(await node.log.read({ type: GUARD_EVENTS.budgetConsumed })).toHaveLength(1);
    } finally {
      client.close();
    }
  });
});
