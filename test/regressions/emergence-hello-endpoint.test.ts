import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNode, type Node } from '../../src/node/index.js';
import { agentServer, done, type AgentServer } from '../support/emergence-agent-server.js';

// Issue 11 item 4: an agent registered by HELLO could never be reached (a HELP to it failed
// PEER_UNAVAILABLE, whatever endpoint it named). Now a HELLO with `_x_endpoint` (https, or
// http on loopback) makes it reachable: a HELP to it is POSTed there as an Emergence message
// and its reply relayed. A real node, and a real HTTP server on 127.0.0.1 as the agent.

let node: Node;
let far: AgentServer;
const dir = mkdtempSync(join(tmpdir(), 'plexus-hello-endpoint-'));

beforeAll(async () => {
  node = createNode({ dataDir: dir, store: 'memory', port: 0, dev: true, demo: false, primitives: false });
  await node.start();
  far = await agentServer([(m) => done(m, { french: `bonjour (${(m['data'] as { text: string }).text})` })]);
});

afterAll(async () => {
  await far.close();
  await node.stop();
  rmSync(dir, { recursive: true, force: true });
});

async function emergence(
  message: Record<string, unknown>,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${node.url}/emergence`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(message),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

describe('an agent that said HELLO with an endpoint', () => {
  it('gets the HELPs addressed to it, with the same id, and its DONE comes back', async () => {
    const hello = await emergence({
      id: randomUUID(),
      from: 'far_translator',
      to: 'broadcast',
      verb: 'HELLO',
      data: { capabilities: ['translate'] },
      _x_endpoint: far.url,
    });
    expect(hello.status, JSON.stringify(hello.body)).toBe(200);

    const id = randomUUID();
    const help = await emergence({
      id,
      from: 'agent_b',
      to: 'far_translator',
      verb: 'HELP',
      data: { text: 'hello' },
    });
    expect(help.status, JSON.stringify(help.body)).toBe(200);
    expect(help.body).toMatchObject({
      id,
      from: 'far_translator',
      to: 'agent_b',
      verb: 'DONE',
      data: { result: { french: 'bonjour (hello)' } },
    });
    expect(far.received).toHaveLength(1);
    expect(far.received[0]).toMatchObject({
      id,
      to: 'far_translator',
      verb: 'HELP',
      data: { text: 'hello' },
    });
  });

  it('is refused (ERROR 400) when the endpoint is clear-text http off loopback, or no URL', async () => {
    for (const endpoint of ['http://agents.example.com/a', 'ftp://127.0.0.1/', 'somewhere']) {
      const res = await emergence({
        id: randomUUID(),
        from: 'bad_endpoint',
        to: 'broadcast',
        verb: 'HELLO',
        data: { capabilities: ['x'] },
        _x_endpoint: endpoint,
      });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ verb: 'ERROR', data: { code: 400 } });
      expect((res.body['data'] as { msg: string }).msg).toMatch(/_x_endpoint/);
    }
  });
});
