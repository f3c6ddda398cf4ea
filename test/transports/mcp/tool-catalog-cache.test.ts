/**
 * The shared tool catalog (docs/decisions/mcp.md MCP-45): `catalogOf` builds a registry's tools
 * once and rebuilds them only when a card is registered, updated or removed, so a `tools/call`
 * no longer rebuilds every tool of the node; whatever changed, it answers exactly what a fresh
 * `toolCatalog` would, right after the change (no stale tool).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createRegistry, type Registry } from '../../../src/runtime/index.js';
import { memoryEventLog, type EventLog } from '../../../src/store/index.js';
import { openEventLog } from '../../../src/store/event-map.js';
import { catalogOf, toolCatalog } from '../../../src/transports/mcp/tool-catalog.js';
import { cap, card, spec } from '../../runtime/helpers.js';

describe('catalogOf', () => {
  let log: EventLog;
  let registry: Registry;

  beforeEach(async () => {
    log = memoryEventLog();
    await log.start();
    registry = createRegistry({ log });
    await registry.start();
  });

  afterEach(async () => {
    await registry.stop();
    await log.stop();
  });

  const names = (): string[] => catalogOf(registry).entries.map((e) => e.tool.name);

  it('is the same catalog while no card changes, even as unrelated events are appended', async () => {
    await registry.upsert(card('a', [cap('demo.echo'), cap('demo.time')]));
    const first = catalogOf(registry);
    await openEventLog(log).append({ type: 'test.unrelated', data: { n: 1 } });
    await registry.upsert(card('a', [cap('demo.echo'), cap('demo.time')])); // same card: no event
    expect(catalogOf(registry)).toBe(first);
    expect(first.entries).toEqual(toolCatalog(registry));
    expect(first.byName('Agent_a.demo.echo')?.verb).toBe('demo.echo');
    expect(first.byName('Agent_a.demo.nope')).toBeUndefined();
  });

  it('follows a registration, an update and a removal at once', async () => {
    await registry.upsert(card('a', [cap('demo.echo')]));
    expect(names()).toEqual(['Agent_a.demo.echo']);
    await registry.upsert(card('b', [cap('b.run')]));
    expect(names()).toEqual(['Agent_a.demo.echo', 'Agent_b.b.run']);
    await registry.upsert(card('a', [cap('demo.echo'), cap('demo.more')]));
    expect(names()).toEqual(['Agent_a.demo.echo', 'Agent_a.demo.more', 'Agent_b.b.run']);
    await registry.remove('b');
    expect(names()).toEqual(['Agent_a.demo.echo', 'Agent_a.demo.more']);
    expect(catalogOf(registry).byName('Agent_b.b.run')).toBeUndefined();
    expect(catalogOf(registry).entries).toEqual(toolCatalog(registry));
  });

  it('sees a changed verb spec (annotations, declared tool name) with its card', async () => {
    await registry.upsert(card('a', [cap('demo.echo')]), { verbs: [spec('demo.echo')] });
    expect(catalogOf(registry).byName('Agent_a.demo.echo')?.tool.annotations?.readOnlyHint).toBe(true);
    await registry.upsert(card('a', [cap('demo.echo')], { description: 'now named' }), {
      verbs: [spec('demo.echo', { category: 'mutation', projection: { 'mcp:tool': { name: 'say' } } })],
    });
    const catalog = catalogOf(registry);
    expect(catalog.byName('Agent_a.demo.echo')).toBeUndefined();
    expect(catalog.byName('say')?.tool.annotations?.readOnlyHint).toBe(false);
    expect(catalog.entries).toEqual(toolCatalog(registry));
  });

  it('keeps one catalog per registry', async () => {
    const otherLog = memoryEventLog();
    await otherLog.start();
    const other = createRegistry({ log: otherLog });
    await other.start();
    try {
      await registry.upsert(card('a', [cap('demo.echo')]));
      await other.upsert(card('z', [cap('z.run')]));
      expect(names()).toEqual(['Agent_a.demo.echo']);
      expect(catalogOf(other).entries.map((e) => e.tool.name)).toEqual(['Agent_z.z.run']);
    } finally {
      await other.stop();
      await otherLog.stop();
    }
  });
});
