/**
 * `tools/list` shows a caller only the tools it may call (issue 13 item 3; docs/decisions/mcp.md
 * MCP-17): on a node with capability checks, two UCAN credentials with different grants see
 * different lists through the SDK's `Client`, a credential without a token sees none, and a
 * call of a tool the caller was not shown is still refused by the runtime.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, describe, expect, it } from 'vitest';
import type { JsonValue } from '../../../src/core/json.js';
import { createNode, type Node } from '../../../src/node/node.js';
import { defineAgent } from '../../../src/runtime/index.js';
import { generateApiKey } from '../../../src/security/index.js';
import { keyPairFromSeed } from '../../../src/security/ed25519.js';
import { identityFromPublicKey } from '../../../src/security/identity.js';
import { signUcan, type Capabilities } from '../../../src/security/ucan/index.js';
import { mcpFace } from '../../../src/transports/mcp/mcp-face.js';

const party = (seed: string) => {
  const key = keyPairFromSeed(seed.repeat(32));
  return { key, did: identityFromPublicKey(key.publicKey).did };
};
const owner = party('2a');
const alice = party('2b');
const bob = party('2c');
const apiKey = generateApiKey();

const spec = (name: string, category: 'query' | 'mutation') => ({
  name,
  version: 1,
  status: 'stable' as const,
  input: { type: 'object' },
  output: { type: 'object' },
  effects: {},
  capabilities: [],
  category,
  deterministic: true,
});

const calc = defineAgent({
  card: {
    id: 'calc',
    name: 'Calc',
    version: '1.0.0',
    tier: 'L3',
    capabilities: [
      { verb: 'calc.add', input: { type: 'object' }, output: { type: 'object' } },
      { verb: 'calc.reset', input: { type: 'object' }, output: { type: 'object' } },
    ],
  },
  verbs: [spec('calc.add', 'query'), spec('calc.reset', 'mutation')],
  create: () => ({
    'calc.add': (input: JsonValue) => ({ sum: input }),
    'calc.reset': () => ({ reset: true }),
  }),
});

describe('MCP tools/list per caller', () => {
  let node: Node | undefined;
  let dir: string | undefined;
  const clients: Client[] = [];
  afterEach(async () => {
    for (const client of clients.splice(0)) await client.close().catch(() => undefined);
    await node?.stop({ drainMs: 0 });
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });

  function bearer(who: { key: ReturnType<typeof keyPairFromSeed>; did: string }, grant: Capabilities) {
    const root = signUcan({ key: owner.key, audience: who.did, capabilities: grant });
    const leaf = signUcan({
      key: who.key,
      audience: node?.nodeId ?? '',
      capabilities: grant,
      proofs: [root.cid],
      ttl: 600,
    });
    return { authorization: `Bearer ${leaf.jwt}`, ucans: root.jwt };
  }

  async function connect(headers: Record<string, string>): Promise<Client> {
    const client = new Client({ name: 'test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${node?.url ?? ''}/mcp`), { requestInit: { headers } }),
    );
    clients.push(client);
    return client;
  }

  const verbsOf = async (client: Client): Promise<unknown[]> =>
    (await client.listTools()).tools.map((t) => t._meta?.['plexus/verb']);

  it('lists only the verbs each credential may call; an unlisted call is still refused', async () => {
    dir = await mkdtemp(join(tmpdir(), 'plexus-mcp-vis-'));
    node = createNode({
      primitives: false,
      dataDir: dir,
      store: 'memory',
      host: '127.0.0.1',
      port: 0,
      dev: false,
      apiKeys: [{ hash: apiKey.hash, subject: 'ci' }],
      agents: [calc],
      capabilities: { enabled: true, roots: [owner.did] },
      faces: [mcpFace()],
    });
    await node.start();
    const narrow = await connect(bearer(alice, { 'agentese:verb/calc.add': { 'verb/invoke': [{}] } }));
    const wide = await connect(bearer(bob, { 'agentese:verb/calc.*': { 'verb/invoke': [{}] } }));
    const none = await connect({ authorization: `Bearer ${apiKey.key}` });

    expect(await verbsOf(narrow)).toEqual(['calc.add']);
    expect(await verbsOf(wide)).toEqual(['calc.add', 'calc.reset']);
    expect(await verbsOf(none)).toEqual([]);

    const wideTools = (await wide.listTools()).tools;
    const reset = wideTools.find((t) => t._meta?.['plexus/verb'] === 'calc.reset')?.name ?? '';
    const add = wideTools.find((t) => t._meta?.['plexus/verb'] === 'calc.add')?.name ?? '';
    // the narrow credential was not shown calc.reset, and calling it anyway is refused
    const refused = await narrow.callTool({ name: reset, arguments: {} });
    expect(refused.isError).toBe(true);
    expect(refused._meta?.['plexus/code']).toBe('FORBIDDEN');
    expect((await narrow.callTool({ name: add, arguments: { a: 1 } })).isError).not.toBe(true);
    expect((await wide.callTool({ name: reset, arguments: {} })).isError).not.toBe(true);
  });
});
