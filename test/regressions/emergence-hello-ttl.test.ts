import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { parseNodeConfig } from '../../src/node/config.js';
import { emergencePresence } from '../../src/transports/http/emergence-presence.js';
import { emergence, get, post, startNode, type TestNode } from '../transports/http/helpers.js';

// Issue 11 item 4: an agent registered by HELLO without an endpoint lingered forever,
// unreachable. It now expires after a TTL without a new HELLO (default 5 minutes). The clock
// is injected: nothing here waits.

const nodes: TestNode[] = [];
afterEach(async () => {
  await Promise.all(nodes.splice(0).map((n) => n.close()));
});

async function clockedNode(ttlMs?: number): Promise<{ node: TestNode; clock: { t: number } }> {
  const clock = { t: 1_000_000 };
  const node = await startNode({
    init: { now: () => clock.t, ...(ttlMs === undefined ? {} : { helloTtlMs: ttlMs }) },
  });
  nodes.push(node);
  return { node, clock };
}

const hello = (from: string, extra: Record<string, unknown> = {}) => ({
  ...emergence('HELLO', { capabilities: ['ping'] }, 'broadcast', from),
  ...extra,
});

async function ids(node: TestNode): Promise<string[]> {
  return ((await get(`${node.base}/agents`)).body['agents'] as { id: string }[]).map((a) => a.id);
}

describe('HELLO registrations without an endpoint', () => {
  it('expire 5 minutes after the last HELLO by default; a new HELLO keeps them', async () => {
    const { node, clock } = await clockedNode();
    expect((await post(`${node.base}/emergence`, hello('quiet_agent'))).status).toBe(200);
    expect((await post(`${node.base}/emergence`, hello('chatty_agent'))).status).toBe(200);
    expect(await ids(node)).toEqual(expect.arrayContaining(['quiet_agent', 'chatty_agent']));

    clock.t += 4 * 60_000;
    expect((await post(`${node.base}/emergence`, hello('chatty_agent', { id: randomUUID() }))).status).toBe(
      200,
    );
    expect(await ids(node)).toEqual(expect.arrayContaining(['quiet_agent', 'chatty_agent']));

    clock.t += 60_000; // quiet_agent: 5 min since its HELLO; chatty_agent: 1 min
    const help = await post(`${node.base}/emergence`, emergence('HELP', {}, 'quiet_agent'));
    expect(help.status).toBe(404);
    const now = await ids(node);
    expect(now).not.toContain('quiet_agent');
    expect(now).toContain('chatty_agent');
  });

  it('never expire an agent that named an endpoint, nor the agents the node hosts', async () => {
    const { node, clock } = await clockedNode(1000);
    const withEndpoint = hello('reachable_agent', { _x_endpoint: 'http://127.0.0.1:9/agent' });
    expect((await post(`${node.base}/emergence`, withEndpoint)).status).toBe(200);
    expect((await post(`${node.base}/emergence`, hello('short_lived'))).status).toBe(200);
    clock.t += 10_000;
    await post(`${node.base}/emergence`, emergence('HELP', {}, 'echo'));
    const now = await ids(node);
    expect(now).toContain('reachable_agent');
    expect(now).toContain('echo');
    expect(now).not.toContain('short_lived');
  });

  it('a restarted sweeper gives registrations it never saw one TTL from its start', async () => {
    const { node, clock } = await clockedNode();
    expect((await post(`${node.base}/emergence`, hello('old_agent'))).status).toBe(200);
    const fresh = emergencePresence(node.runtime.agents.registry, { ttlMs: 1000, now: () => clock.t });
    expect(await fresh.sweep()).toEqual([]);
    clock.t += 1000;
    expect(await fresh.sweep()).toEqual(['old_agent']);
    expect(await ids(node)).not.toContain('old_agent');
  });

  it('is configurable as helloTtlMs in plexus.yaml, and refuses a bad value', async () => {
    expect(parseNodeConfig({ helloTtlMs: 60_000 }).helloTtlMs).toBe(60_000);
    expect(() => parseNodeConfig({ helloTtlMs: 0 })).toThrow(/helloTtlMs/);
    const { node } = await clockedNode();
    expect(() => emergencePresence(node.runtime.agents.registry, { ttlMs: 0 })).toThrow(/helloTtlMs/);
  });
});
