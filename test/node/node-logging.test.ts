// Issue 16 item 3: a node with the structured log of `plexus start` writes one line per
// invocation with the seed §7.3 fields and its trace, redacts personal data (in a user id, in
// input echoed by an error), and logs a crashed handler's stack.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNode, type Node } from '../../src/node/index.js';
import { nodeLogger } from '../../src/node/node-logger.js';
import { InvocationError, agent, createPlexus, verb, type Plexus } from '../../src/sdk/index.js';
import { esrpRequest, post } from '../e2e/harness.js';
import { eventually as pollUntilValue } from '../support/until.js';

type Line = Record<string, unknown>;

const lines: string[] = [];
const json = (): Line[] => lines.map((l) => JSON.parse(l) as Line);
const TRACE = '0af7651916cd43dd8448eb211c80319c';
const PARENT = 'b7ad6b7169203331';

let dir: string;
let node: Node;
let plexus: Plexus;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'plexus-node-logging-'));
  node = createNode({
    dataDir: dir,
    store: 'memory',
    port: 0,
    dev: true,
    demo: ['math'],
    primitives: false,
    logger: nodeLogger({ write: (line) => lines.push(line) }),
  });
  await node.start();
  plexus = createPlexus({ node });
  const any = { type: 'object' } as const;
  await plexus.register(
    agent('contacts', [
      verb('contacts.find', { input: any, output: any }, (input: { email?: string }) => {
        throw new TypeError(`no contact ${String(input.email)}`);
      }),
      verb('contacts.count', { input: any, output: any, effects: ['reads: contacts'] }, () => ({ n: 1 })),
    ]),
  );
});

afterAll(async () => {
  await node.stop();
  rmSync(dir, { recursive: true, force: true });
});

const invocations = (verbName: string): Line[] =>
  json().filter((l) => l['event'] === 'invocation' && l['verb'] === verbName);

/** Waits for a line (the log is written as the invocation ends, the answer may come first). */
function lineOf(what: string, find: (l: Line) => boolean): Promise<Line> {
  return pollUntilValue(what, () => Promise.resolve(json().find(find)), { limitMs: 10_000, everyMs: 20 });
}

describe('the node log', () => {
  it('writes one invocation line with the seed fields and the trace of the request', async () => {
    const r = await post(`${node.url}/v1/execute`, esrpRequest('math.evaluate', { expression: '1+1' }), {
      traceparent: `00-${TRACE}-${PARENT}-01`,
    });
    expect(r.status).toBe(200);
    const line = await lineOf(
      'the invocation line',
      (l) => l['event'] === 'invocation' && l['trace_id'] === TRACE,
    );
    expect(line).toMatchObject({
      level: 'info',
      verb: 'math.evaluate',
      trace_id: TRACE,
      tenant_id: null,
      user_id: null,
      status: 'success',
      effects_executed: [],
      cache_hit: false,
      face: 'esrp',
      mode: 'sync',
    });
    expect(line['span_id']).toMatch(/^[\da-f]{16}$/);
    expect(typeof line['duration_ms']).toBe('number');
    expect(new Date(String(line['timestamp'])).toISOString()).toBe(line['timestamp']);
    expect(invocations('math.evaluate').filter((l) => l['trace_id'] === TRACE)).toHaveLength(1);
    // and one routing decision, local, with the same trace
    const routing = await lineOf(
      'the routing line',
      (l) => l['event'] === 'routing' && l['trace_id'] === TRACE,
    );
    expect(routing).toMatchObject({ verb: 'math.evaluate', path: 'local', agents: 1, outcome: 'success' });
  });

  it('lists the effects carried out, and marks an answer of an earlier identical request', async () => {
    await plexus.invoke('contacts.count', {}, { idempotencyKey: 'count-1' });
    await plexus.invoke('contacts.count', {}, { idempotencyKey: 'count-1' });
    await lineOf('the second contacts.count line', () => invocations('contacts.count').length === 2);
    expect(invocations('contacts.count').map((l) => [l['effects_executed'], l['cache_hit']])).toEqual([
      [['reads:contacts'], false],
      [[], true],
    ]);
  });

  it('redacts an e-mail address in the user id and in input a crash echoes, and logs the stack', async () => {
    const error = await plexus
      .invoke('contacts.find', { email: 'ada@example.org' }, { userId: 'ada@example.org' })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(error).toBeInstanceOf(InvocationError);
    const invocation = await lineOf(
      'the failed invocation line',
      (l) => l['verb'] === 'contacts.find' && l['event'] === 'invocation',
    );
    expect(invocation).toMatchObject({
      user_id: '[REDACTED]',
      status: 'INTERNAL',
      face: 'sdk',
    });
    const crash = await lineOf(
      'the crash line',
      (l) => l['level'] === 'error' && l['verb'] === 'contacts.find',
    );
    expect(crash['msg']).toBe('a handler crashed; its caller got INTERNAL');
    expect(crash['stack']).toMatch(
      /^TypeError: no contact \[REDACTED:email\]\n\s+at .*node-logging\.test\.ts:\d+/,
    );
    expect(lines.join('')).not.toContain('ada@example.org');
  });

  it('writes one line per MCP tool call: tool, calling client, serving agent, duration, success', async () => {
    const client = new Client({ name: 'log-test-client', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${node.url}/mcp`)));
    try {
      const { tools } = await client.listTools();
      const tool = tools.find((t) => t.name.includes('contacts') && t.name.includes('count'))?.name;
      expect(tool).toBeDefined();
      const result = await client.callTool({ name: tool ?? '', arguments: {} });
      expect(result.isError).not.toBe(true);
      const line = await lineOf('the MCP line', (l) => l['event'] === 'mcp.tool_call');
      expect(line).toMatchObject({
        level: 'info',
        tool,
        source_agent: 'log-test-client',
        agent: 'contacts',
        success: true,
        status: 'success',
      });
      expect(typeof line['duration_ms']).toBe('number');
    } finally {
      await client.close();
    }
  });
});
