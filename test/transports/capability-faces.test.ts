// The capability token on every face of a node (ESRP, Emergence, WebSocket JSON-RPC, the SDK's
// remote client) and revocation over the wire: real UCAN chains, a real node on 127.0.0.1.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createNode, type Node } from '../../src/node/index.js';
import { generateApiKey } from '../../src/security/auth/api-keys.js';
import { keyPairFromSeed, type Ed25519KeyPair } from '../../src/security/ed25519.js';
import { identityFromPublicKey } from '../../src/security/identity.js';
import { createRevocation, signUcan, type Capabilities, type Ucan } from '../../src/security/ucan/index.js';
import { remoteClient } from '../../src/sdk/remote-client.js';
import { InvocationError } from '../../src/sdk/invocation-error.js';
import { defineAgent } from '../../src/runtime/index.js';
import { notesAgent } from '../support/notes-agent.js';

interface Party {
  readonly key: Ed25519KeyPair;
  readonly did: string;
}
const party = (seed: string): Party => {
  const key = keyPairFromSeed(seed.repeat(32));
  return { key, did: identityFromPublicKey(key.publicKey).did };
};
const owner = party('1a');
const alice = party('1b');
const mallory = party('1c');

const WRITE: Capabilities = {
  'agentese:verb/notes.entry.add': { 'notes/write': [{}] },
  'agentese:notes': { 'effect/writes': [{}] },
};
const READ_ONLY: Capabilities = { 'agentese:verb/notes.entry.add': { 'notes/read': [{}] } };

const notes = notesAgent;

/** Releases the running `notes.entry.hold` jobs (each waits until this is called). */
let releaseHolds: () => void = () => undefined;
const held = new Promise<void>((resolve) => {
  releaseHolds = resolve;
});
/** `notes.entry.hold`: a mutation like `add` that finishes only when the test releases it. */
const hold = defineAgent({
  card: {
    id: 'hold',
    name: 'Hold',
    version: '1.0.0',
    tier: 'L3',
    capabilities: [{ verb: 'notes.entry.hold', input: true, output: true }],
  },
  verbs: [
    {
      name: 'notes.entry.hold',
      version: 1,
      status: 'stable',
      input: true,
      output: true,
      effects: { writes: ['notes'] },
      capabilities: ['notes:write'],
      category: 'mutation',
      deterministic: false,
    },
  ],
  create: () => ({ 'notes.entry.hold': async () => held.then(() => ({ held: true })) }),
});

const apiKey = generateApiKey();
let node: Node;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'plexus-capfaces-'));
  node = createNode({
    dataDir: dir,
    port: 0,
    primitives: false,
    agents: [notes, hold],
    apiKeys: [{ hash: apiKey.hash, subject: 'ci' }],
    capabilities: { enabled: true, roots: [owner.did] },
  });
  await node.start();
});

afterAll(async () => {
  await node.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** owner → alice (the grant), alice → node (the leaf alice presents). */
function chain(
  opts: { grant?: Capabilities; claim?: Capabilities; leafExpiresAt?: number; audience?: string } = {},
): { leaf: Ucan; root: Ucan; container: string } {
  const root = signUcan({ key: owner.key, audience: alice.did, capabilities: opts.grant ?? WRITE });
  const leaf = signUcan({
    key: alice.key,
    audience: opts.audience ?? node.nodeId,
    capabilities: opts.claim ?? opts.grant ?? WRITE,
    proofs: [root.cid],
    ...(opts.leafExpiresAt === undefined ? { ttl: 600 } : { expiresAt: opts.leafExpiresAt }),
  });
  return { leaf, root, container: `${leaf.jwt},${root.jwt}` };
}

function tampered(jwt: string): string {
  const [h, p, s] = jwt.split('.') as [string, string, string];
  const flipped = (s[0] === 'A' ? 'B' : 'A') + s.slice(1);
  return `${h}.${p}.${flipped}`;
}

/** A broken chain: as bearer headers, and as one container. */
interface Broken {
  readonly headers: Record<string, string>;
  readonly container: string;
}

function broken(leaf: string, root: string): Broken {
  return { headers: { authorization: `Bearer ${leaf}`, ucans: root }, container: `${leaf},${root}` };
}

/** Every way a chain breaks, with the reason and the link (0 = the presented token) named. */
const BROKEN: readonly (readonly [string, () => Broken, string, number])[] = [
  [
    'an expired link',
    () => {
      const c = chain({ leafExpiresAt: Date.now() - 3_600_000 });
      return broken(c.leaf.jwt, c.root.jwt);
    },
    'expired',
    0,
  ],
  [
    'a widened scope',
    () => {
      const c = chain({ grant: READ_ONLY, claim: WRITE });
      return broken(c.leaf.jwt, c.root.jwt);
    },
    'widened',
    0,
  ],
  [
    'the wrong audience',
    () => {
      const c = chain({ audience: mallory.did });
      return broken(c.leaf.jwt, c.root.jwt);
    },
    'audience',
    0,
  ],
  [
    'a bad signature',
    () => {
      const c = chain();
      return broken(tampered(c.leaf.jwt), c.root.jwt);
    },
    'signature',
    0,
  ],
  [
    // An altered proof no longer has the CID its delegate names: it is no proof at all.
    'an altered proof',
    () => {
      const c = chain();
      return broken(c.leaf.jwt, tampered(c.root.jwt));
    },
    'missing-proof',
    1,
  ],
  [
    'a revoked link',
    () => {
      const c = chain();
      revokedLeaves.push(c.leaf.cid);
      return broken(c.leaf.jwt, c.root.jwt);
    },
    'revoked',
    0,
  ],
];

/** Leaves the `a revoked link` case made; revoked before each use (see {@link revokeAll}). */
const revokedLeaves: string[] = [];

/** Revokes (as alice, their issuer) every leaf made by the `a revoked link` case. */
async function revokeAll(): Promise<void> {
  for (const cid of revokedLeaves.splice(0)) {
    const response = await fetch(`${node.url}/v1/capabilities/revocations`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${apiKey.key}` },
      body: JSON.stringify(createRevocation(alice.key, cid)),
    });
    expect(response.status).toBe(201);
  }
}

/** Makes a broken case, revoking it first when it is the revoked one. */
async function make(factory: () => Broken): Promise<Broken> {
  const made = factory();
  await revokeAll();
  return made;
}

function esrpBody(text: string): string {
  return JSON.stringify({
    esrp_version: '1.0',
    request_id: randomUUID(),
    idempotency_key: randomUUID(),
    timestamp: new Date().toISOString(),
    caller: { system: 'test' },
    target: { service: 'notes.entry', operation: 'add' },
    mode: { type: 'sync', timeout_ms: 10000 },
    inputs: [{ name: 'text', content_type: 'text/plain', data: text, encoding: 'utf-8', metadata: null }],
    params: null,
  });
}

interface EsrpReply {
  status: number;
  body: { status: string; error?: { code: string; message: string; details?: Record<string, unknown> } };
}

async function esrp(headers: Record<string, string>): Promise<EsrpReply> {
  const response = await fetch(`${node.url}/v1/execute`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: esrpBody('hello'),
  });
  return { status: response.status, body: (await response.json()) as EsrpReply['body'] };
}

const bearer = (c: { leaf: Ucan; root: Ucan }): Record<string, string> => ({
  authorization: `Bearer ${c.leaf.jwt}`,
  ucans: c.root.jwt,
});

describe('ESRP: Authorization: Bearer <ucan> with its proofs in `ucans`', () => {
  it('runs a request whose chain grants the verb', async () => {
    const reply = await esrp(bearer(chain()));
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.body.status).toBe('succeeded');
  });

  it('accepts the proofs left out once the node has seen them', async () => {
    const c = chain();
    expect((await esrp(bearer(c))).status).toBe(200);
    expect((await esrp({ authorization: `Bearer ${c.leaf.jwt}` })).status).toBe(200);
  });

  it('refuses a missing proof, naming it', async () => {
    const reply = await esrp({ authorization: `Bearer ${chain().leaf.jwt}` });
    expect(reply.status).toBe(401);
    expect(reply.body.error?.details?.['reason']).toBe('missing-proof');
    expect(reply.body.error?.details?.['link']).toBe(1);
  });

  it.each(BROKEN)('refuses %s with 401 naming the link', async (_name, factory, reason, link) => {
    const reply = await esrp((await make(factory)).headers);
    expect(reply.status, JSON.stringify(reply.body)).toBe(401);
    expect(reply.body.status).toBe('failed');
    expect(reply.body.error?.details?.['plexus_code']).toBe('UNAUTHORIZED');
    expect(reply.body.error?.details?.['reason']).toBe(reason);
    expect(reply.body.error?.details?.['link']).toBe(link);
  });

  it('refuses a valid chain without the scope with 403 naming the scope', async () => {
    const reply = await esrp(bearer(chain({ grant: READ_ONLY })));
    expect(reply.status).toBe(403);
    expect(reply.body.error?.details?.['reason']).toBe('missing-scope');
    expect(reply.body.error?.details?.['scope']).toBe('notes:write');
    expect(reply.body.error?.message).toContain('notes:write');
  });

  it('takes a container in Plexus-Capability beside an API key', async () => {
    const ok = await esrp({ authorization: `Bearer ${apiKey.key}`, 'plexus-capability': chain().container });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    const none = await esrp({ authorization: `Bearer ${apiKey.key}` });
    expect(none.status).toBe(401);
    expect(none.body.error?.details?.['reason']).toBe('missing');
  });
});

const forTenant = (tenant: string): Capabilities => ({
  'agentese:verb/notes.entry.add': { 'notes/write': [{ tenant }] },
  'agentese:notes': { 'effect/writes': [{ tenant }] },
});

describe('a UCAN bound to a tenant by its caveats', () => {
  it("acts for that tenant: another tenant's UCAN sees its jobs as missing", async () => {
    const acme = chain({ grant: forTenant('acme') });
    const body = JSON.parse(esrpBody('tenanted')) as Record<string, unknown>;
    const submitted = await fetch(`${node.url}/v1/jobs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...bearer(acme) },
      body: JSON.stringify({ ...body, mode: { type: 'async', timeout_ms: 10000 } }),
    });
    expect(submitted.status).toBe(202);
    const id = ((await submitted.json()) as { job: { job_id: string } }).job.job_id;
    const read = (c: { leaf: Ucan; root: Ucan }) =>
      fetch(`${node.url}/v1/jobs/${id}`, { headers: bearer(c) }).then((r) => r.status);
    expect(await read(acme)).toBe(200);
    expect(await read(chain({ grant: forTenant('globex') }))).toBe(404);
    expect(await read(chain())).toBe(404); // bound to no tenant
    expect((await node.runtime.jobs.get(id)).tenantId).toBe('acme');
  });
});

interface EmergenceReply {
  status: number;
  body: { verb: string; data: { result?: unknown; code?: number; msg?: string } };
}

async function emergence(headers: Record<string, string>, extra: Record<string, unknown> = {}) {
  const response = await fetch(`${node.url}/emergence`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({
      id: randomUUID(),
      from: 'tester',
      to: 'notes',
      verb: 'HELP',
      data: { verb: 'notes.entry.add', input: { text: 'hi' } },
      ...extra,
    }),
  });
  return { status: response.status, body: (await response.json()) as EmergenceReply['body'] };
}

describe('Emergence: the headers, or `_x_capability` in the message', () => {
  it('runs a HELP carrying the bearer UCAN', async () => {
    const reply = await emergence(bearer(chain()));
    expect(reply.body.verb, JSON.stringify(reply.body)).toBe('DONE');
  });

  it('runs a HELP carrying _x_capability beside an API key', async () => {
    const reply = await emergence(
      { authorization: `Bearer ${apiKey.key}` },
      { _x_capability: chain().container },
    );
    expect(reply.body.verb, JSON.stringify(reply.body)).toBe('DONE');
  });

  it('answers ERROR 403 naming the missing scope, and ERROR 401 naming a broken link', async () => {
    const narrow = await emergence(
      { authorization: `Bearer ${apiKey.key}` },
      { _x_capability: chain({ grant: READ_ONLY }).container },
    );
    expect(narrow.status).toBe(403);
    expect(narrow.body.verb).toBe('ERROR');
    expect(narrow.body.data.code).toBe(403);
    expect(narrow.body.data.msg).toContain('notes:write');
    const widened = await emergence(bearer(chain({ grant: READ_ONLY, claim: WRITE })));
    expect(widened.status).toBe(401);
    expect(widened.body.data.msg).toContain('link 0');
  });

  it.each(BROKEN)(
    'answers ERROR 401 for %s in _x_capability, naming the link',
    async (_n, factory, reason, link) => {
      const reply = await emergence(
        { authorization: `Bearer ${apiKey.key}` },
        { _x_capability: (await make(factory)).container },
      );
      expect(reply.status, JSON.stringify(reply.body)).toBe(401);
      expect(reply.body.verb).toBe('ERROR');
      expect(reply.body.data.code).toBe(401);
      const plexus = (reply.body as unknown as { _x_plexus_error?: { details?: Record<string, unknown> } })
        ._x_plexus_error;
      expect(plexus?.details?.['reason']).toBe(reason);
      expect(plexus?.details?.['link']).toBe(link);
    },
  );

  it.each(BROKEN)('answers ERROR 401 for %s as the bearer', async (_n, factory, reason) => {
    const reply = await emergence((await make(factory)).headers);
    expect(reply.status).toBe(401);
    expect(reply.body.verb).toBe('ERROR');
    expect(JSON.stringify(reply.body)).toContain(reason);
  });

  it('refuses an _x_capability that is not a string', async () => {
    const reply = await emergence({ authorization: `Bearer ${apiKey.key}` }, { _x_capability: 7 });
    expect(reply.status).toBe(400);
    expect(reply.body.data.msg).toContain('_x_capability');
  });
});

interface Rpc {
  ws: WebSocket;
  call(
    method: string,
    params: unknown,
  ): Promise<{ result?: unknown; error?: { code: number; message: string; data?: Record<string, unknown> } }>;
  closed: Promise<number>;
}

async function connect(headers: Record<string, string>): Promise<Rpc> {
  const ws = new WebSocket(`${node.url.replace('http', 'ws')}/rpc`, { headers });
  const closed = new Promise<number>((resolve) =>
    ws.once('close', (code) => {
      resolve(code);
    }),
  );
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => {
      resolve();
    });
    ws.once('unexpected-response', (_req, res) => {
      reject(new Error(`HTTP ${res.statusCode}`));
    });
    ws.once('error', reject);
  });
  let next = 0;
  const pending = new Map<number, (value: never) => void>();
  ws.on('message', (raw: Buffer) => {
    const msg = JSON.parse(raw.toString()) as { id?: number };
    if (typeof msg.id === 'number') pending.get(msg.id)?.(msg as never);
  });
  return {
    ws,
    closed,
    call: (method, params) =>
      new Promise((resolve) => {
        const id = ++next;
        pending.set(id, resolve);
        ws.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
      }),
  };
}

async function upgradeStatus(headers: Record<string, string>): Promise<{ status: number; body: string }> {
  const ws = new WebSocket(`${node.url.replace('http', 'ws')}/rpc`, { headers });
  return new Promise((resolve, reject) => {
    ws.once('open', () => {
      ws.close();
      resolve({ status: 101, body: '' });
    });
    ws.once('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.on('end', () => {
        resolve({ status: res.statusCode ?? 0, body });
      });
    });
    ws.once('error', reject);
  });
}

describe('WebSocket JSON-RPC: at the upgrade and per call (params._x_capability)', () => {
  it('runs calls on a connection opened with a bearer UCAN', async () => {
    const rpc = await connect(bearer(chain()));
    const answer = await rpc.call('notes.entry.add', { text: 'x' });
    expect(answer.result, JSON.stringify(answer)).toEqual({ added: { text: 'x' } });
    rpc.ws.close();
  });

  it('refuses the upgrade of a broken chain with 401 naming the link', async () => {
    const reply = await upgradeStatus(bearer(chain({ audience: mallory.did })));
    expect(reply.status).toBe(401);
    const body = JSON.parse(reply.body) as { error: { details: Record<string, unknown> } };
    expect(body.error.details['reason']).toBe('audience');
    expect(body.error.details['link']).toBe(0);
  });

  it.each(BROKEN)(
    'refuses the upgrade for %s with 401 naming the link',
    async (_n, factory, reason, link) => {
      const reply = await upgradeStatus((await make(factory)).headers);
      expect(reply.status).toBe(401);
      const body = JSON.parse(reply.body) as { error: { details: Record<string, unknown> } };
      expect(body.error.details['reason']).toBe(reason);
      expect(body.error.details['link']).toBe(link);
    },
  );

  it.each(BROKEN)(
    'answers a call carrying %s with an error naming the link',
    async (_n, factory, reason, link) => {
      const rpc = await connect({ authorization: `Bearer ${apiKey.key}` });
      const answer = await rpc.call('notes.entry.add', {
        text: 'x',
        _x_capability: (await make(factory)).container,
      });
      expect(answer.error?.data?.['code'], JSON.stringify(answer)).toBe('UNAUTHORIZED');
      expect(answer.error?.data?.['reason']).toBe(reason);
      expect(answer.error?.data?.['link']).toBe(link);
      rpc.ws.close();
    },
  );

  it('takes a per-call _x_capability beside an API key, and names a missing scope', async () => {
    const rpc = await connect({ authorization: `Bearer ${apiKey.key}` });
    const ok = await rpc.call('notes.entry.add', { text: 'y', _x_capability: chain().container });
    expect(ok.result, JSON.stringify(ok)).toEqual({ added: { text: 'y' } });
    const refused = await rpc.call('notes.entry.add', {
      text: 'z',
      _x_capability: chain({ grant: READ_ONLY }).container,
    });
    expect(refused.error?.data?.['code']).toBe('FORBIDDEN');
    expect(refused.error?.data?.['scope']).toBe('notes:write');
    const bad = await rpc.call('notes.entry.add', { text: 'z', _x_capability: 5 });
    expect(bad.error?.data?.['code']).toBe('INVALID_PARAMS');
    rpc.ws.close();
  });
});

describe('the SDK remote client', () => {
  it('sends a UCAN container as its bearer token (leaf + ucans)', async () => {
    const client = remoteClient(node.url, { token: chain().container });
    await expect(client.invoke('notes.entry.add', { text: 'sdk' })).resolves.toBeDefined();
  });

  it.each(BROKEN)(
    'surfaces %s as an UNAUTHORIZED InvocationError naming the link',
    async (_n, factory, reason, link) => {
      const client = remoteClient(node.url, { token: (await make(factory)).container });
      const error = await client.invoke('notes.entry.add', { text: 'sdk' }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(InvocationError);
      expect((error as InvocationError).code).toBe('UNAUTHORIZED');
      expect((error as InvocationError).details?.['reason']).toBe(reason);
      expect((error as InvocationError).details?.['link']).toBe(link);
    },
  );

  it('sends a capability beside an API key, and surfaces a refusal with its details', async () => {
    const client = remoteClient(node.url, { token: apiKey.key, capability: chain().container });
    await expect(client.invoke('notes.entry.add', { text: 'sdk' })).resolves.toBeDefined();
    const error = await client
      .invoke('notes.entry.add', { text: 'sdk' }, { capability: chain({ grant: READ_ONLY }).container })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvocationError);
    expect((error as InvocationError).code).toBe('FORBIDDEN');
    expect((error as InvocationError).details?.['scope']).toBe('notes:write');
  });
});

describe('revocation over the wire', () => {
  async function revoke(headers: Record<string, string>, body: unknown) {
    const response = await fetch(`${node.url}/v1/capabilities/revocations`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  }

  it('refuses the token on every face at once, open connections included', async () => {
    const c = chain();
    expect((await esrp(bearer(c))).status).toBe(200);
    const rpc = await connect(bearer(c));
    expect((await rpc.call('notes.entry.add', { text: 'before' })).result).toBeDefined();

    const done = await revoke(bearer(c), createRevocation(alice.key, c.leaf.cid));
    expect(done.status, JSON.stringify(done.body)).toBe(201);
    expect(done.body).toEqual({ revoked: c.leaf.cid, issuer: alice.did });

    const http = await esrp(bearer(c));
    expect(http.status).toBe(401);
    expect(http.body.error?.details?.['reason']).toBe('revoked');
    const em = await emergence({ authorization: `Bearer ${apiKey.key}` }, { _x_capability: c.container });
    expect(em.status).toBe(401);
    expect(em.body.data.msg).toContain('revoked');
    rpc.ws.send(JSON.stringify({ jsonrpc: '2.0', id: 99, method: 'notes.entry.add', params: {} }));
    expect(await rpc.closed).toBe(1008);
    expect((await upgradeStatus(bearer(c))).status).toBe(401);
  });

  it('ends an open SSE stream at its next event once the token is revoked', async () => {
    const c = chain({ grant: { ...WRITE, 'agentese:verb/notes.entry.hold': { 'notes/write': [{}] } } });
    const submitted = await fetch(`${node.url}/v1/jobs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...bearer(c) },
      body: JSON.stringify({
        ...(JSON.parse(esrpBody('hold')) as Record<string, unknown>),
        target: { service: 'notes.entry', operation: 'hold' },
        mode: { type: 'async', timeout_ms: 10000 },
      }),
    });
    expect(submitted.status).toBe(202);
    const { job } = (await submitted.json()) as { job: { job_id: string } };
    const stream = await fetch(`${node.url}/v1/jobs/${job.job_id}/events`, { headers: bearer(c) });
    expect(stream.status).toBe(200);
    const reader = (stream.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    let text = '';
    while (!text.includes('event: job_started')) {
      const chunk = await reader.read();
      if (chunk.done) break;
      text += decoder.decode(chunk.value, { stream: true });
    }
    expect(text).toContain('event: job_started');
    const done = await revoke(bearer(c), createRevocation(alice.key, c.leaf.cid));
    expect(done.status).toBe(201);
    releaseHolds(); // the job now succeeds: its last event must not reach the revoked holder
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
      text += decoder.decode(chunk.value, { stream: true });
    }
    expect(text).toContain(': the credential expired or was revoked');
    expect(text).not.toContain('event: job_succeeded');
  });

  it('refuses a revocation by someone outside the chain (403) and a bad signature (401)', async () => {
    const c = chain();
    expect((await esrp(bearer(c))).status).toBe(200); // the node now knows the chain
    const outsider = await revoke(bearer(c), createRevocation(mallory.key, c.leaf.cid));
    expect(outsider.status).toBe(403);
    const forged = { ...createRevocation(alice.key, c.leaf.cid), iss: mallory.did };
    expect((await revoke(bearer(c), forged)).status).toBe(401);
    expect((await revoke(bearer(c), { revoke: 1 })).status).toBe(400);
    expect((await revoke({}, createRevocation(alice.key, c.leaf.cid))).status).toBe(401);
    expect((await esrp(bearer(c))).status).toBe(200);
  });
});
