/** MCP tool names (docs/decisions/mcp.md MCP-2) and session expiry (MCP-4), without a node. */
import { describe, expect, it } from 'vitest';
import { McpSessions } from '../../../src/transports/mcp/mcp-sessions.js';
import { sessionServer } from '../../../src/transports/mcp/mcp-server.js';
import { createRuntime } from '../../../src/runtime/index.js';
import { memoryEventLog } from '../../../src/store/index.js';
import { MCP_TOOL_NAME_MAX, plainToolName, toolNames } from '../../../src/transports/mcp/tool-names.js';

const CHARSET = /^[A-Za-z0-9_.-]+$/;

describe('MCP tool names', () => {
  it('is agentName.verb in the MCP charset', () => {
    expect(plainToolName('Contract agent', 'contract.whoami')).toBe('Contract_agent.contract.whoami');
    expect(plainToolName('a/b', 'x@2')).toBe('a_b.x_2');
  });

  it('makes clashing and over-long names unique, stable and within 128 characters', () => {
    const sources = [
      { agentId: 'did:key:one', agentName: 'Twin', verb: 'twin.go' },
      { agentId: 'did:key:two', agentName: 'Twin', verb: 'twin.go' },
      { agentId: 'long', agentName: 'L'.repeat(200), verb: 'long.verb' },
      { agentId: 'plain', agentName: 'Plain', verb: 'plain.go' },
    ];
    const names = toolNames(sources);
    expect(new Set(names).size).toBe(names.length);
    for (const name of names) {
      expect(name).toMatch(CHARSET);
      expect(name.length).toBeLessThanOrEqual(MCP_TOOL_NAME_MAX);
    }
    expect(names[3]).toBe('Plain.plain.go');
    expect(names[0]).toMatch(/^Twin\.twin\.go-[0-9a-f]{10}$/);
    // independent of order
    expect(toolNames([...sources].reverse()).reverse()).toEqual(names);
  });
});

describe('MCP sessions', () => {
  it('ends a session idle past the limit, and only its owner may use it', async () => {
    let now = 1_000;
    const sessions = new McpSessions({ idleMs: 100, now: () => now });
    // a real runtime, not started: opening and ending a session does not call it
    const runtime = createRuntime({ log: memoryEventLog(), nodeId: 'node', agents: [] });
    const alice = { id: 'alice', kind: 'api-key', scopes: [], tenantId: 'a' };
    const make = () =>
      sessionServer({
        runtime,
        principal: alice,
        transport: {},
        pageSize: 10,
        headSeq: () => Promise.resolve(0),
      });
    const session = await sessions.open(alice, make);
    expect(session.id).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(sessions.use(session.id, { ...alice, tenantId: 'b' })).toBeUndefined();
    now += 50;
    expect(sessions.use(session.id, alice)).toBe(session);
    now += 100;
    await sessions.sweep();
    expect(sessions.use(session.id, alice)).toBeUndefined();
    await sessions.close();
  });
});
