/**
 * The invocation record of a `tools/call` answered after a restart (issue 13 item 7,
 * docs/decisions/mcp.md MCP-57, MCP-62). A previous process is stood in for by the log itself:
 * the call's job is submitted exactly as the face submits it (`callTool`, key `mcp:<uuid>`) and
 * its `mcp.stream.call` is appended for a POST stream key this process never had; a `GET` with
 * a `Last-Event-ID` on that key resumes the stream from the log. The answer is recorded once as
 * an `mcp.invocation` (causation `mcp-call:<key>`) before it is sent: resuming again records
 * nothing more, and a call the previous process had recorded is not recorded again. A live
 * call answered on a POST stream carries the same causation; one answered as JSON carries none.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterEach, describe, expect, it } from 'vitest';
import type { JsonValue } from '../../../src/core/json.js';
import { createNode, type Node } from '../../../src/node/node.js';
import { defineAgent } from '../../../src/runtime/index.js';
import { generateApiKey } from '../../../src/security/index.js';
import { invocationRecordOf, MCP_INVOCATION_EVENT } from '../../../src/transports/mcp/invocation-record.js';
import { mcpFace } from '../../../src/transports/mcp/mcp-face.js';
import { sessionHash } from '../../../src/transports/mcp/session-records.js';
import { callCausation, recordStreamedCall } from '../../../src/transports/mcp/stream-records.js';
import { callTool, toolCallKey } from '../../../src/transports/mcp/tool-call.js';
import { catalogOf } from '../../../src/transports/mcp/tool-catalog.js';
import { connectMcpClient, mcpSessionOf } from '../../support/mcp-client.js';
import { until } from '../../support/until.js';

const key = generateApiKey();
const principal = { id: 'alice', kind: 'api-key', tenantId: 'tenant-a' };

const echo = defineAgent({
  card: {
    id: 'echo',
    name: 'Echo',
    version: '1.0.0',
    tier: 'L3',
    capabilities: [{ verb: 'echo.say', input: { type: 'object' }, output: { type: 'object' } }],
  },
  create: () => ({
    'echo.say': (input: JsonValue) => {
      if (typeof input === 'object' && input !== null && 'fail' in input) throw new Error('asked to fail');
      return { said: input };
    },
  }),
});

describe('MCP: a call answered after a restart is recorded once (MCP-62)', () => {
  const nodes: Node[] = [];
  const dirs: string[] = [];
  const clients: Client[] = [];
  afterEach(async () => {
    for (const client of clients.splice(0)) await client.close().catch(() => undefined);
    for (const node of nodes.splice(0)) await node.stop({ drainMs: 0 });
    for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
  });

  async function serve(): Promise<Node> {
    const dataDir = await mkdtemp(join(tmpdir(), 'plexus-mcp-recovered-'));
    dirs.push(dataDir);
    const node = createNode({
      primitives: false,
      dataDir,
      store: 'memory',
      host: '127.0.0.1',
      port: 0,
      dev: false,
      apiKeys: [{ hash: key.hash, subject: 'alice', tenant: 'tenant-a' }],
      agents: [echo],
      faces: [mcpFace()],
    });
    nodes.push(node);
    await node.start();
    return node;
  }

  async function connect(node: Node): Promise<{ client: Client; session: string; tool: string }> {
    const client = await connectMcpClient(node.url, {
      name: 'recovered-record-test',
      headers: { authorization: `Bearer ${key.key}` },
    });
    clients.push(client);
    const { tools } = await client.listTools();
    const tool = tools.find((t) => t.name.endsWith('say'))?.name ?? '';
    return { client, session: mcpSessionOf(client), tool };
  }

  /**
   * What a previous process left: the call's job (submitted and run as the face runs it) and its
   * `mcp.stream.call` on a POST stream `stream` of `session`.
   */
  async function previousCall(
    node: Node,
    session: string,
    tool: string,
    args: Record<string, unknown>,
  ): Promise<{ stream: string; callKey: string }> {
    const entry = catalogOf(node.runtime.agents.registry).byName(tool);
    if (entry === undefined) throw new Error(`no tool ${tool}`);
    const callId = randomUUID();
    const stream = `p${randomUUID().replace(/-/g, '').slice(0, 16)}`;
    const callKey = toolCallKey(callId);
    recordStreamedCall(
      node.log,
      { hash: sessionHash(session), stream, tenant: 'tenant-a' },
      { id: 41, tool, token: 'tok', key: callKey },
    );
    await callTool(node.runtime, entry, args, {
      callId,
      principal,
      transport: {},
      signal: new AbortController().signal,
      progressToken: 'tok',
      notify: () => Promise.resolve(),
    });
    return { stream, callKey };
  }

  /** Resumes `stream` of `session` with a GET and reads it to its end. */
  async function resume(node: Node, session: string, stream: string): Promise<string> {
    const res = await fetch(`${node.url}/mcp`, {
      headers: {
        authorization: `Bearer ${key.key}`,
        accept: 'text/event-stream',
        'mcp-session-id': session,
        'mcp-protocol-version': '2025-11-25',
        'last-event-id': `${stream}-0`,
      },
    });
    expect(res.status).toBe(200);
    return res.text();
  }

  async function recordsOf(node: Node, callKey?: string) {
    const events = await node.log.read({
      type: MCP_INVOCATION_EVENT,
      ...(callKey === undefined ? {} : { causation: callCausation(callKey) }),
    });
    return events.map((e) => ({ event: e, record: invocationRecordOf(e.data) }));
  }

  it('records the resumed answer before sending it, once, whatever the outcome', async () => {
    const node = await serve();
    const { session, tool } = await connect(node);
    const ok = await previousCall(node, session, tool, { text: 'hi' });
    const failed = await previousCall(node, session, tool, { fail: true });
    expect(await recordsOf(node)).toEqual([]); // the previous process recorded nothing

    const body = await resume(node, session, ok.stream);
    expect(body).toContain('"id":41');
    expect(body).toContain('"said"');
    const [one, ...more] = await recordsOf(node, ok.callKey);
    expect(more).toEqual([]);
    expect(one?.event.tenant).toBe('tenant-a');
    expect(one?.record).toMatchObject({
      tool,
      agent: 'echo',
      verb: 'echo.say',
      principal: 'alice',
      arguments: { text: 'hi' },
      outcome: 'success',
    });
    expect(one?.record.result).toMatchObject({ structuredContent: { said: { text: 'hi' } } });
    expect(one?.record.durationMs).toBeGreaterThanOrEqual(0);

    await resume(node, session, failed.stream);
    const [bad, ...others] = await recordsOf(node, failed.callKey);
    expect(others).toEqual([]);
    expect(bad?.record.outcome).not.toBe('success');
    expect(bad?.record.result).toMatchObject({ isError: true });

    // resuming again answers again and records nothing more
    expect(await resume(node, session, ok.stream)).toContain('"id":41');
    expect(await recordsOf(node)).toHaveLength(2);
    // the stats count each call once
    const stats = (await (
      await fetch(`${node.url}/v1/stats/mcp`, { headers: { authorization: `Bearer ${key.key}` } })
    ).json()) as { calls: number; errors: number };
    expect(stats).toMatchObject({ calls: 2, errors: 1 });
  });

  it('does not record a call the previous process recorded already', async () => {
    const node = await serve();
    const { session, tool } = await connect(node);
    const call = await previousCall(node, session, tool, { text: 'recorded before' });
    await node.log.append({
      type: MCP_INVOCATION_EVENT,
      tenant: 'tenant-a',
      causation: callCausation(call.callKey),
      data: {
        tool,
        agent: 'echo',
        verb: 'echo.say',
        principal: 'alice',
        arguments: { text: 'recorded before' },
        result: { content: [] },
        durationMs: 1,
        outcome: 'success',
        at: new Date().toISOString(),
      },
    });
    expect(await resume(node, session, call.stream)).toContain('"id":41');
    expect(await recordsOf(node)).toHaveLength(1);
  });

  it('a live call answered on a POST stream names its key; one answered as JSON names none', async () => {
    const node = await serve();
    const { session, tool } = await connect(node);
    const post = (accept: string, id: number) =>
      fetch(`${node.url}/mcp`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${key.key}`,
          accept,
          'content-type': 'application/json',
          'mcp-session-id': session,
          'mcp-protocol-version': '2025-11-25',
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id,
          method: 'tools/call',
          params: { name: tool, arguments: { n: id } },
        }),
      });
    expect((await (await post('text/event-stream', 5)).text()).includes('"id":5')).toBe(true);
    expect((await (await post('application/json', 6)).text()).includes('"id":6')).toBe(true);
    await until(async () => (await recordsOf(node)).length === 2, { what: 'both calls recorded' });
    const records = await recordsOf(node);
    const streamed = records.find((r) => JSON.stringify(r.record.arguments) === '{"n":5}');
    const json = records.find((r) => JSON.stringify(r.record.arguments) === '{"n":6}');
    expect(streamed?.event.causation).toMatch(/^mcp-call:mcp:[0-9a-f-]{36}$/);
    expect(json?.event.causation).toBeUndefined();
    // the streamed call's record is the one its stream's resumption would look for
    const [streamCall] = await node.log.read({ type: 'mcp.stream.call' });
    const recordedKey = (streamCall?.data as { key?: string } | undefined)?.key ?? '';
    expect(streamed?.event.causation).toBe(callCausation(recordedKey));
  });
});
