/**
 * Seed 004 Req 5.5 (docs/decisions/mcp.md MCP-52): registering two tools with the same MCP name
 * is refused with an error naming both — two agents whose names clean to the same tool name,
 * two verbs declaring one `mcp:tool` name, a declared name outside the MCP charset — at node
 * start and by `runtime.agents.add`, with nothing of the refused agent registered; the node's
 * `/mcp` keeps serving the tools it had (stock SDK `Client`). A remote card is not refused.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterEach, describe, expect, it } from 'vitest';
import type { JsonValue } from '../../../src/core/json.js';
import type { VerbSpec } from '../../../src/core/records/verb-spec.js';
import { createNode, type Node } from '../../../src/node/node.js';
import { defineAgent, type AgentDefinition } from '../../../src/runtime/index.js';
import { connectMcpClient } from '../../support/mcp-client.js';

function agent(id: string, name: string, verbs: Record<string, string | undefined>): AgentDefinition {
  const spec = (verb: string, tool: string | undefined): VerbSpec => ({
    name: verb,
    version: 1,
    status: 'stable',
    input: { type: 'object' },
    output: { type: 'object' },
    effects: {},
    capabilities: [],
    category: 'query',
    deterministic: false,
    ...(tool === undefined ? {} : { projection: { 'mcp:tool': { name: tool } } }),
  });
  return defineAgent({
    card: {
      id,
      name,
      version: '1.0.0',
      tier: 'L3',
      capabilities: Object.keys(verbs).map((verb) => ({
        verb,
        input: { type: 'object' },
        output: { type: 'object' },
      })),
    },
    verbs: Object.entries(verbs).map(([verb, tool]) => spec(verb, tool)),
    create: () => Object.fromEntries(Object.keys(verbs).map((verb) => [verb, (): JsonValue => ({ by: id })])),
  });
}

describe('two tools of one name are refused at registration (Req 5.5)', () => {
  const nodes: Node[] = [];
  const clients: Client[] = [];
  afterEach(async () => {
    for (const client of clients.splice(0)) await client.close().catch(() => undefined);
    for (const node of nodes.splice(0)) await node.stop({ drainMs: 0 });
  });

  async function serve(agents: AgentDefinition[]): Promise<Node> {
    const node = createNode({
      primitives: false,
      demo: false,
      store: 'memory',
      host: '127.0.0.1',
      port: 0,
      dev: true,
      agents,
    });
    nodes.push(node);
    await node.start();
    return node;
  }

  it('refuses a second agent whose tool name cleans to a taken one, naming both; /mcp keeps serving', async () => {
    const node = await serve([agent('clock-1', 'Clock agent', { 'time.now': undefined })]);
    const client = await connectMcpClient(node.url);
    clients.push(client);
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['Clock_agent.time.now']);

    // "Clock_agent" and "Clock agent" both clean to Clock_agent
    const refused = node.runtime.agents.add(agent('clock-2', 'Clock_agent', { 'time.now': undefined }));
    await expect(refused).rejects.toMatchObject({
      code: 'CONFLICT',
      message: expect.stringMatching(
        /agent clock-2 cannot be registered: its verb time\.now of agent clock-2 would be the MCP tool "Clock_agent\.time\.now", which the verb time\.now of agent clock-1 already is/,
      ) as unknown,
      details: { tool: 'Clock_agent.time.now', conflictsWith: { agent: 'clock-1', verb: 'time.now' } },
    });
    // nothing of it registered: not in the registry, its verb not routed to it
    expect(node.runtime.agents.registry.find('clock-2')).toBeUndefined();
    const listed = await client.listTools();
    expect(listed.tools.map((t) => t.name)).toEqual(['Clock_agent.time.now']);
    const result = await client.callTool({ name: 'Clock_agent.time.now', arguments: {} });
    expect(result.structuredContent).toEqual({ by: 'clock-1' });

    // a different verb under the same name is fine, and so is replacing the agent itself
    await node.runtime.agents.add(agent('clock-2', 'Clock_agent', { 'time.zone': undefined }));
    await node.runtime.agents.add(
      agent('clock-1', 'Clock agent', { 'time.now': undefined, 'time.utc': undefined }),
    );
    expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual([
      'Clock_agent.time.now',
      'Clock_agent.time.utc',
      'Clock_agent.time.zone',
    ]);
  });

  it('refuses two verbs declaring one mcp:tool name, in one agent or across agents, and an invalid name', async () => {
    const node = await serve([agent('files', 'Files', { 'fs.read': 'read_file' })]);
    await expect(
      node.runtime.agents.add(agent('twins', 'Twins', { 'twin.a': 'twin', 'twin.b': 'twin' })),
    ).rejects.toMatchObject({
      code: 'CONFLICT',
      message: expect.stringMatching(
        /agent twins cannot be registered: its verb twin\.a of agent twins and its verb twin\.b would both be the MCP tool "twin"/,
      ) as unknown,
    });
    await expect(
      node.runtime.agents.add(agent('other', 'Other', { 'x.read': 'read_file' })),
    ).rejects.toMatchObject({
      code: 'CONFLICT',
      message: expect.stringMatching(
        /"read_file", which the verb fs\.read of agent files already is/,
      ) as unknown,
    });
    // a declared name that equals another agent's plain name clashes too
    await node.runtime.agents.add(agent('plain', 'Plain', { 'p.q': undefined }));
    await expect(
      node.runtime.agents.add(agent('sneaky', 'Sneaky', { 'x.y': 'Plain.p.q' })),
    ).rejects.toMatchObject({
      code: 'CONFLICT',
    });
    await expect(
      node.runtime.agents.add(agent('spaces', 'Spaces', { 'x.y': 'has space' })),
    ).rejects.toMatchObject({
      code: 'INVALID_PARAMS',
      message: expect.stringMatching(
        /verb x\.y declares the MCP tool name "has space".*\[A-Za-z0-9_\.-\]/,
      ) as unknown,
    });
    for (const id of ['twins', 'other', 'sneaky', 'spaces'])
      expect(node.runtime.agents.registry.find(id)).toBeUndefined();
  });

  it('refuses to start a node whose own agents clash', async () => {
    const node = createNode({
      primitives: false,
      demo: false,
      store: 'memory',
      host: '127.0.0.1',
      port: 0,
      dev: true,
      agents: [agent('a-1', 'Same', { 'x.y': undefined }), agent('a-2', 'Same', { 'x.y': undefined })],
    });
    await expect(node.start()).rejects.toThrow(/agent a-2 cannot be registered: .*"Same\.x\.y".*agent a-1/);
  });

  it('does not refuse a clash with a remote card: MCP-2 hashes both names apart', async () => {
    const node = await serve([agent('local', 'Echo', { 'echo.say': undefined })]);
    await node.runtime.agents.registry.upsert(
      {
        id: 'far',
        name: 'Echo',
        version: '1.0.0',
        tier: 'L3',
        capabilities: [{ verb: 'echo.say', input: { type: 'object' }, output: { type: 'object' } }],
      },
      { origin: 'remote' },
    );
    const client = await connectMcpClient(node.url);
    clients.push(client);
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toHaveLength(2);
    for (const name of names) expect(name).toMatch(/^Echo\.echo\.say-[0-9a-f]{10}$/);
  });
});
