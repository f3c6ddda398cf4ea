/**
 * What a session's GET stream missed across a restart (issue 13 item 1; docs/decisions/mcp.md
 * MCP-63). Two nodes in turn on one data directory (SQLite log): a session opened on the first,
 * subscribed to two agent cards, is revived on the second by a `GET` whose `Last-Event-ID` names
 * the first process's GET stream. An agent added and another changed while the client was away
 * (after the second node started, so its own announcement reached no session) are told on the
 * new stream: the list changes once each and `resources/updated` for the subscribed card that
 * changed — not for the one that did not.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterEach, describe, expect, it } from 'vitest';
import type { JsonValue } from '../../../src/core/json.js';
import { createNode, type Node } from '../../../src/node/node.js';
import { defineAgent, type AgentDefinition } from '../../../src/runtime/index.js';
import { generateApiKey } from '../../../src/security/index.js';
import { mcpFace } from '../../../src/transports/mcp/mcp-face.js';
import { MCP_SESSION_EVENTS } from '../../../src/transports/mcp/session-records.js';
import { connectMcpClient, mcpSessionOf } from '../../support/mcp-client.js';
import { until } from '../../support/until.js';

const key = generateApiKey();

function agent(id: string, description = 'an agent'): AgentDefinition {
  return defineAgent({
    card: {
      id,
      name: id,
      version: '1.0.0',
      tier: 'L3',
      description,
      capabilities: [{ verb: `${id}.run`, input: { type: 'object' }, output: { type: 'object' } }],
    },
    create: () => ({ [`${id}.run`]: (input: JsonValue) => ({ ran: input }) }),
  });
}

/** The SSE `data:` messages read from `res` until `enough` says so (bounded by `until`). */
async function messagesUntil(
  res: Response,
  enough: (methods: string[]) => boolean,
): Promise<{ methods: string[]; uris: string[] }> {
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let text = '';
  const methods: string[] = [];
  const uris: string[] = [];
  const pump = (async () => {
    for (let i = 0; i < 1000 && !enough(methods); i++) {
      const { value, done } = await reader.read();
      if (done) return;
      text += decoder.decode(value, { stream: true });
      let cut = text.indexOf('\n\n');
      while (cut >= 0) {
        const frame = text.slice(0, cut);
        text = text.slice(cut + 2);
        cut = text.indexOf('\n\n');
        const data = frame
          .split('\n')
          .filter((l) => l.startsWith('data: '))
          .map((l) => l.slice(6))
          .join('');
        if (data.trim() === '') continue;
        const message = JSON.parse(data) as { method?: string; params?: { uri?: string } };
        if (message.method !== undefined) methods.push(message.method);
        if (message.params?.uri !== undefined) uris.push(message.params.uri);
      }
    }
  })();
  await until(() => enough(methods), { what: 'the missed notifications' });
  await reader.cancel().catch(() => undefined);
  await pump.catch(() => undefined);
  return { methods, uris };
}

describe('MCP: the GET stream of a previous process is told what it missed (MCP-63)', () => {
  const nodes: Node[] = [];
  const dirs: string[] = [];
  const clients: Client[] = [];
  afterEach(async () => {
    for (const client of clients.splice(0)) await client.close().catch(() => undefined);
    for (const node of nodes.splice(0)) await node.stop({ drainMs: 0 });
    for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
  });

  async function serve(dataDir: string, agents: AgentDefinition[]): Promise<Node> {
    const node = createNode({
      primitives: false,
      dataDir,
      store: 'sqlite',
      host: '127.0.0.1',
      port: 0,
      dev: false,
      apiKeys: [{ hash: key.hash, subject: 'alice', tenant: 'tenant-a' }],
      agents,
      faces: [mcpFace()],
    });
    nodes.push(node);
    await node.start();
    return node;
  }

  const get = (node: Node, session: string, lastEventId?: string) =>
    fetch(`${node.url}/mcp`, {
      headers: {
        authorization: `Bearer ${key.key}`,
        accept: 'text/event-stream',
        'mcp-session-id': session,
        'mcp-protocol-version': '2025-11-25',
        ...(lastEventId === undefined ? {} : { 'last-event-id': lastEventId }),
      },
    });

  it('tells the list changes and the changed subscribed card once each; not the unchanged one', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'plexus-mcp-missed-'));
    dirs.push(dataDir);
    const first = await serve(dataDir, [agent('steady'), agent('changing')]);
    const client = await connectMcpClient(first.url, {
      name: 'missed-test',
      headers: { authorization: `Bearer ${key.key}` },
    });
    clients.push(client);
    const session = mcpSessionOf(client);
    await client.subscribeResource({ uri: 'plexus://agents/steady' });
    await client.subscribeResource({ uri: 'plexus://agents/changing' });
    await until(
      async () =>
        (await first.log.read({ type: MCP_SESSION_EVENTS.touched })).some(
          (e) => JSON.stringify(e.data).split('plexus://agents/').length === 3,
        ),
      { what: 'the subscriptions kept in the log' },
    );
    await client.close();
    clients.length = 0;
    await first.stop({ drainMs: 0 });
    nodes.length = 0;

    const second = await serve(dataDir, [agent('steady'), agent('changing')]);
    // while the client is away: an agent arrives, another changes
    await second.runtime.agents.add(agent('newcomer'));
    await second.runtime.agents.add(agent('changing', 'changed while the client was away'));

    const res = await get(second, session, 'g0123456789abcdef-4');
    expect(res.status).toBe(200);
    const told = await messagesUntil(
      res,
      (m) =>
        m.includes('notifications/tools/list_changed') &&
        m.includes('notifications/prompts/list_changed') &&
        m.includes('notifications/resources/updated'),
    );
    const count = (method: string) => told.methods.filter((m) => m === method).length;
    expect(count('notifications/tools/list_changed')).toBe(1);
    expect(count('notifications/resources/list_changed')).toBe(1);
    expect(count('notifications/prompts/list_changed')).toBe(1);
    // the unchanged card is subscribed first: had it been told, it would come before
    expect(told.uris).toEqual(['plexus://agents/changing']);
  });
});
