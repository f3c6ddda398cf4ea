/**
 * Invocation records of the MCP face (issue 13 item 7; docs/decisions/mcp.md MCP-16): each
 * `tools/call` leaves an `mcp.invocation` record in the log that round-trips through JSON
 * (a seeded property), a structured log line, and counts in `GET /v1/stats/mcp`, which is
 * computed from the records (it survives a restart on the SQLite log) and is tenant-scoped.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, describe, expect, it } from 'vitest';
import { PlexusError } from '../../../src/core/errors.js';
import type { JsonValue } from '../../../src/core/json.js';
import { createNode, type Node } from '../../../src/node/node.js';
import { defineAgent } from '../../../src/runtime/index.js';
import { generateApiKey } from '../../../src/security/index.js';
import {
  MCP_INVOCATION_EVENT,
  RECORD_VALUE_LIMIT,
  invocationRecordData,
  invocationRecordOf,
  recordedValue,
  type InvocationRecord,
} from '../../../src/transports/mcp/invocation-record.js';
import { mcpFace } from '../../../src/transports/mcp/mcp-face.js';
import { memoryLogger, type MemoryLogger } from '../../support/memory-logger.js';

const keyA = generateApiKey();
const keyB = generateApiKey();

const echo = defineAgent({
  card: {
    id: 'echo',
    name: 'Echo',
    version: '1.0.0',
    tier: 'L3',
    capabilities: [
      { verb: 'echo.say', input: { type: 'object' }, output: { type: 'object' } },
      { verb: 'echo.fail', input: { type: 'object' }, output: { type: 'object' } },
    ],
  },
  create: () => ({
    'echo.say': (input: JsonValue) => ({ said: input }),
    'echo.fail': () => {
      throw new PlexusError('PRECONDITION_FAILED', 'the echo refuses');
    },
  }),
});

const json = fc.jsonValue({ maxDepth: 3 }) as fc.Arbitrary<JsonValue>;
const name = fc.string({ minLength: 1, maxLength: 40 });
const record: fc.Arbitrary<InvocationRecord> = fc.record({
  tool: name,
  agent: name,
  verb: name,
  principal: name,
  // as the recorder keeps them: JSON text read back (fast-check's JSON values include -0)
  arguments: json.map((v) => recordedValue(v)),
  result: json.map((v) => recordedValue(v)),
  durationMs: fc.double({ min: 0, max: 1e9, noNaN: true, noDefaultInfinity: true }),
  outcome: fc.oneof(fc.constant('success'), fc.constantFrom('PRECONDITION_FAILED', 'TIMEOUT', 'INTERNAL')),
  at: fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
});

describe('MCP invocation records', () => {
  it('round-trip through JSON unchanged (property)', () => {
    fc.assert(
      fc.property(record, (r) => {
        const text = JSON.stringify(invocationRecordData(r));
        expect(invocationRecordOf(JSON.parse(text))).toStrictEqual({ ...r });
      }),
      { numRuns: 300 },
    );
  });

  it('keep values of JSON within the limit, and the size and hash of larger ones', () => {
    fc.assert(
      fc.property(json, (value) => {
        const kept = recordedValue(value);
        expect(JSON.parse(JSON.stringify(kept))).toStrictEqual(kept);
        if (Buffer.byteLength(JSON.stringify(value)) <= RECORD_VALUE_LIMIT)
          expect(kept).toStrictEqual(JSON.parse(JSON.stringify(value)));
      }),
      { numRuns: 200 },
    );
    const big = recordedValue({ text: 'x'.repeat(RECORD_VALUE_LIMIT) }) as Record<string, unknown>;
    expect(big['plexus/omitted']).toMatchObject({ bytes: RECORD_VALUE_LIMIT + 11 });
  });

  it('refuse malformed data naming the field', () => {
    expect(() => invocationRecordOf([])).toThrow(/must be an object/);
    const good = invocationRecordData({
      tool: 't',
      agent: 'a',
      verb: 'v',
      principal: 'p',
      arguments: {},
      result: null,
      durationMs: 1,
      outcome: 'success',
      at: new Date(0).toISOString(),
    });
    expect(() => invocationRecordOf({ ...good, durationMs: -1 })).toThrow(/durationMs/);
    expect(() => invocationRecordOf({ ...good, tool: '' })).toThrow(/tool/);
    const noResult: Record<string, unknown> = { ...good };
    delete noResult['result'];
    expect(() => invocationRecordOf(noResult)).toThrow(/arguments and result/);
  });
});

describe('MCP tool calls on a node: records, log lines, GET /v1/stats/mcp', () => {
  const nodes: Node[] = [];
  const dirs: string[] = [];
  const clients: Client[] = [];
  afterEach(async () => {
    for (const client of clients.splice(0)) await client.close().catch(() => undefined);
    for (const node of nodes.splice(0)) await node.stop({ drainMs: 0 });
    for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
  });

  async function serve(dataDir: string, logger: MemoryLogger): Promise<Node> {
    const node = createNode({
      primitives: false,
      dataDir,
      store: 'sqlite',
      host: '127.0.0.1',
      port: 0,
      dev: false,
      logger,
      apiKeys: [
        { hash: keyA.hash, subject: 'alice', tenant: 'tenant-a' },
        { hash: keyB.hash, subject: 'bob', tenant: 'tenant-b' },
      ],
      agents: [echo],
      faces: [mcpFace()],
    });
    nodes.push(node);
    await node.start();
    return node;
  }

  async function connect(node: Node, key: string): Promise<Client> {
    const client = new Client({ name: 'test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${node.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${key}` } },
      }),
    );
    clients.push(client);
    return client;
  }

  async function stats(node: Node, key?: string): Promise<{ status: number; body: Record<string, unknown> }> {
    const res = await fetch(`${node.url}/v1/stats/mcp`, {
      headers: key === undefined ? {} : { authorization: `Bearer ${key}` },
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  }

  it('records each call, logs it, and aggregates the records per tenant, across a restart', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'plexus-mcp-rec-'));
    dirs.push(dataDir);
    const logger = memoryLogger();
    let node = await serve(dataDir, logger);
    const client = await connect(node, keyA.key);
    const { tools } = await client.listTools();
    const say = tools.find((t) => t._meta?.['plexus/verb'] === 'echo.say')?.name ?? '';
    const fail = tools.find((t) => t._meta?.['plexus/verb'] === 'echo.fail')?.name ?? '';
    await client.callTool({ name: say, arguments: { n: 1 } });
    await client.callTool({ name: say, arguments: { n: 2 } });
    const failed = await client.callTool({ name: fail, arguments: {} });
    expect(failed.isError).toBe(true);

    const events = await node.log.read({ type: MCP_INVOCATION_EVENT });
    expect(events).toHaveLength(3);
    expect(events.every((e) => e.tenant === 'tenant-a')).toBe(true);
    const records = events.map((e) => invocationRecordOf(e.data));
    expect(records[0]).toMatchObject({
      tool: say,
      agent: 'echo',
      verb: 'echo.say',
      principal: 'alice',
      arguments: { n: 1 },
      outcome: 'success',
      result: { content: [{ type: 'text', text: JSON.stringify({ said: { n: 1 } }) }] },
    });
    expect(records[2]).toMatchObject({
      tool: fail,
      outcome: 'PRECONDITION_FAILED',
      result: { isError: true },
    });

    const lines = logger.events('mcp.tool_call');
    expect(lines.map((l) => [l.fields['tool'], l.fields['agent'], l.fields['success']])).toEqual([
      [say, 'echo', true],
      [say, 'echo', true],
      [fail, 'echo', false],
    ]);
    expect(lines.every((l) => typeof l.fields['duration_ms'] === 'number')).toBe(true);

    const mean = (rs: InvocationRecord[]): number => rs.reduce((s, r) => s + r.durationMs, 0) / rs.length;
    const a = await stats(node, keyA.key);
    expect(a.status).toBe(200);
    expect(a.body).toMatchObject({ calls: 3, errors: 1 });
    expect(a.body['meanDurationMs']).toBeCloseTo(mean(records), 6);
    expect(a.body['byTool']).toMatchObject({
      [say]: { calls: 2, errors: 0 },
      [fail]: { calls: 1, errors: 1 },
    });
    // another tenant sees none of it
    expect((await stats(node, keyB.key)).body).toEqual({
      calls: 0,
      errors: 0,
      meanDurationMs: 0,
      byTool: {},
    });

    // the figures come from the log: a restarted node reads the same
    await client.close();
    await node.stop({ drainMs: 0 });
    nodes.splice(0);
    node = await serve(dataDir, memoryLogger());
    expect((await stats(node, keyA.key)).body).toEqual(a.body);
  });

  it('refuses GET /v1/stats/mcp without a valid credential in the plain error form', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'plexus-mcp-rec-'));
    dirs.push(dataDir);
    const node = await serve(dataDir, memoryLogger());
    const none = await stats(node);
    expect(none.status).toBe(401);
    expect(none.body).toMatchObject({ error: { code: 'UNAUTHORIZED' } });
    const forged = await stats(node, `${keyA.key}x`);
    expect(forged.status).toBe(401);
    expect((await stats(node, keyA.key)).status).toBe(200);
  });
});
