/**
 * MCP sessions kept in the event log (docs/decisions/mcp.md MCP-55, MCP-56), without HTTP: a
 * second session table over the same log stands for the restarted process. What is revived
 * (same principal and tenant, not ended, not idle), what is not, what the revived SDK server
 * knows without a new `initialize`, and that the log never holds a session id.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { JsonObject } from '../../../src/core/json.js';
import { createRuntime, defineAgent, type Principal, type Runtime } from '../../../src/runtime/index.js';
import { memoryEventLog, type EventLog } from '../../../src/store/index.js';
import { McpSessions, newSessionId, type SessionHooks } from '../../../src/transports/mcp/mcp-sessions.js';
import { sessionServer } from '../../../src/transports/mcp/mcp-server.js';
import {
  MCP_SESSION_EVENTS,
  sessionHash,
  sessionRecords,
} from '../../../src/transports/mcp/session-records.js';

const IDLE_MS = 60_000;
const alice: Principal = { id: 'alice', kind: 'api-key', scopes: [], tenantId: 'a' };

const initialize: JsonObject = {
  protocolVersion: '2025-06-18',
  capabilities: { elicitation: {} },
  clientInfo: { name: 'records-test', version: '9.9.9' },
};

let now = 1_700_000_000_000;
const clock = (): number => now;
const tables: McpSessions[] = [];

afterEach(async () => {
  for (const table of tables.splice(0)) await table.close();
});

async function startedLog(): Promise<EventLog> {
  const log = memoryEventLog({ now: clock });
  await log.start();
  return log;
}

const card = defineAgent({
  card: {
    id: 'card',
    name: 'Card',
    version: '1.0.0',
    tier: 'L3',
    capabilities: [{ verb: 'card.show', input: { type: 'object' }, output: { type: 'object' } }],
  },
  create: () => ({ 'card.show': () => ({}) }),
});

/** A session table over `log` (one per "process"); `runtime`: a started one, else one never started. */
function table(
  log: EventLog,
  given?: Runtime,
): {
  sessions: McpSessions;
  make: (principal: Principal) => (hooks: SessionHooks) => ReturnType<typeof sessionServer>;
} {
  const sessions = new McpSessions({ idleMs: IDLE_MS, now: clock, records: sessionRecords(log) });
  tables.push(sessions);
  // a real runtime, not started: opening and reviving a session does not call it
  const runtime = given ?? createRuntime({ log, nodeId: 'node', agents: [] });
  const make = (principal: Principal) => (hooks: SessionHooks) =>
    sessionServer({
      runtime,
      principal,
      transport: {},
      pageSize: 10,
      headSeq: () => Promise.resolve(0),
      levelChanged: (level) => {
        hooks.levelChanged(level);
      },
      subscriptionsChanged: (uris) => {
        hooks.subscriptionsChanged(uris);
      },
    });
  return { sessions, make };
}

describe('MCP sessions kept in the log', () => {
  it('revives a session in a new table: client info, capabilities and logging level', async () => {
    const log = await startedLog();
    const first = table(log);
    const opened = await first.sessions.open(alice, first.make(alice), initialize);
    // the client's initialize, as the routes hand it over
    await new Promise<JSONRPCMessage>((resolve) => {
      opened.transport.receive(
        { jsonrpc: '2.0', id: 0, method: 'initialize', params: initialize },
        { streams: false, write: resolve },
      );
    });
    expect(opened.server.getClientCapabilities()?.elicitation).toBeDefined();
    // the client sets a level: the log hears of it
    await new Promise<JSONRPCMessage>((resolve) => {
      opened.transport.receive(
        { jsonrpc: '2.0', id: 1, method: 'logging/setLevel', params: { level: 'debug' } },
        { streams: false, write: resolve },
      );
    });
    await until(log, MCP_SESSION_EVENTS.touched);

    now += 1_000;
    const second = table(log);
    const revived = await second.sessions.revive(opened.id, alice, second.make(alice));
    expect(revived?.id).toBe(opened.id);
    expect(revived?.revived).toBe(true);
    expect(revived?.level).toBe('debug');
    expect(revived?.server.getClientVersion()).toEqual({ name: 'records-test', version: '9.9.9' });
    expect(revived?.server.getClientCapabilities()).toEqual(opened.server.getClientCapabilities());
    // a request now runs as in any initialised session
    const answer = await new Promise<JSONRPCMessage>((resolve) => {
      revived?.transport.receive(
        { jsonrpc: '2.0', id: 2, method: 'ping' },
        { streams: false, write: resolve },
      );
    });
    expect(answer).toEqual({ jsonrpc: '2.0', id: 2, result: {} });
    // the log holds the id's hash, never the id
    const events = await log.read({ typePrefix: 'mcp.session.' });
    expect(events.length).toBeGreaterThan(0);
    expect(JSON.stringify(events)).not.toContain(opened.id);
    expect(JSON.stringify(events)).toContain(sessionHash(opened.id));
  });

  it('does not revive for another principal or tenant, an ended session, an idle one, or an unknown id', async () => {
    const log = await startedLog();
    const first = table(log);
    const kept = await first.sessions.open(alice, first.make(alice), initialize);
    const deleted = await first.sessions.open(alice, first.make(alice), initialize);
    await first.sessions.end(deleted.id, 'deleted');

    const second = table(log);
    const bob: Principal = { ...alice, id: 'bob' };
    const otherTenant: Principal = { ...alice, tenantId: 'b' };
    expect(await second.sessions.revive(kept.id, bob, second.make(bob))).toBeUndefined();
    expect(await second.sessions.revive(kept.id, otherTenant, second.make(otherTenant))).toBeUndefined();
    expect(await second.sessions.revive(deleted.id, alice, second.make(alice))).toBeUndefined();
    expect(await second.sessions.revive(newSessionId(), alice, second.make(alice))).toBeUndefined();
    expect(await second.sessions.revive('not-an-id', alice, second.make(alice))).toBeUndefined();

    // idle past the limit (and the touch period): expired, and the log says so
    now += IDLE_MS + IDLE_MS / 4 + 1;
    const third = table(log);
    expect(await third.sessions.revive(kept.id, alice, third.make(alice))).toBeUndefined();
    await until(log, MCP_SESSION_EVENTS.ended, 2);
    const ended = await log.read({ type: MCP_SESSION_EVENTS.ended });
    expect(ended.map((e) => (e.data as JsonObject)['reason'])).toEqual(['deleted', 'idle']);
  });

  it('subscribes a revived session to what it was subscribed to, when the resource still exists', async () => {
    const log = await startedLog();
    const runtime = createRuntime({ log, nodeId: 'node', agents: [card] });
    await runtime.start();
    try {
      const first = table(log, runtime);
      const opened = await first.sessions.open(alice, first.make(alice), initialize);
      const ask = (method: string, params: JsonObject): Promise<JSONRPCMessage> =>
        new Promise((resolve) => {
          opened.transport.receive(
            { jsonrpc: '2.0', id: method, method, params },
            { streams: false, write: resolve },
          );
        });
      await ask('initialize', initialize);
      expect(await ask('resources/subscribe', { uri: 'plexus://agents/card' })).toMatchObject({ result: {} });
      expect(await ask('resources/subscribe', { uri: 'plexus://agents/nobody' })).toHaveProperty('error');
      await until(log, MCP_SESSION_EVENTS.touched);

      const second = table(log, runtime);
      const revived = await second.sessions.revive(opened.id, alice, second.make(alice));
      expect(revived?.subscriptions).toEqual(['plexus://agents/card']);
    } finally {
      await runtime.stop({ drainMs: 0 });
    }
  });

  it('a stopping table records no end: its sessions live on', async () => {
    const log = await startedLog();
    const first = table(log);
    const opened = await first.sessions.open(alice, first.make(alice), initialize);
    await first.sessions.close();
    const second = table(log);
    expect((await second.sessions.revive(opened.id, alice, second.make(alice)))?.id).toBe(opened.id);
    expect(await log.read({ type: MCP_SESSION_EVENTS.ended })).toEqual([]);
  });
});

/** Waits (bounded) until `log` has `count` events of `type` (appends not awaited by the table). */
async function until(log: EventLog, type: string, count = 1): Promise<void> {
  for (let i = 0; i < 1000; i++) {
    if ((await log.read({ type })).length >= count) return;
    await new Promise((resolve) => setImmediate(resolve));
  }
  throw new Error(`no ${count} ${type} event(s) in the log`);
}
