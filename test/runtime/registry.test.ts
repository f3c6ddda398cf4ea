import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PlexusError } from '../../src/core/errors.js';
import { deserializeAgentCard, serializeAgentCard } from '../../src/core/records/agent-card.js';
import type { AgentCard } from '../../src/core/records/agent-card.js';
import {
  RUNTIME_EVENTS,
  createRegistry,
  registryProjection,
  type Registry,
} from '../../src/runtime/index.js';
import { memoryEventLog, rebuildProjection, type EventLog } from '../../src/store/index.js';
import { cap, card, LOG_BACKENDS, spec } from './helpers.js';
import { openEventLog } from '../../src/store/event-map.js';

async function rejection(promise: Promise<unknown>): Promise<PlexusError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof PlexusError) return error;
    throw error;
  }
  throw new Error('expected a rejection');
}

describe('createRegistry', () => {
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

  it('stores a valid card with revision 1 and origin local', async () => {
    const stored = await registry.upsert(card('a', [cap('demo.echo')]));
    expect(stored.revision).toBe(1);
    expect(stored.origin).toBe('local');
    expect(registry.get('a')).toEqual(stored);
  });

  it('rejects a card missing required fields, naming each one', async () => {
    const bad = { id: 'x', name: 'X' } as unknown as AgentCard;
    const error = await rejection(registry.upsert(bad));
    expect(error.code).toBe('INVALID_PARAMS');
    const problems = (error.details?.['problems'] ?? []) as { message: string }[];
    const text = problems.map((p) => p.message).join('\n');
    for (const field of ['version', 'tier', 'capabilities']) expect(text).toContain(`"${field}"`);
    expect(registry.list()).toEqual([]);
  });

  it('keeps the revision, and appends nothing, when the same card is registered again', async () => {
    const first = await registry.upsert(card('a', [cap('demo.echo')]));
    const again = await registry.upsert(card('a', [cap('demo.echo')], { revision: 7 }));
    expect(again).toEqual(first);
    const remote = await registry.upsert(card('a', [cap('demo.echo')]), { origin: 'remote' });
    expect(remote.revision).toBe(2); // a different origin is a change
    expect((await log.read()).map((e) => e.type)).toEqual([
      RUNTIME_EVENTS.agentRegistered,
      RUNTIME_EVENTS.agentUpdated,
    ]);
  });

  it('updates a duplicate id and increments the revision', async () => {
    await registry.upsert(card('a', [cap('demo.echo')]));
    await registry.upsert(card('a', [cap('demo.echo')], { version: '2.0.0' }));
    const third = await registry.upsert(card('a', [cap('demo.other')], { revision: 99 }));
    expect(third.revision).toBe(3);
    expect(third.capabilities.map((c) => c.verb)).toEqual(['demo.other']);
    const types = (await log.read()).map((e) => e.type);
    expect(types).toEqual([
      RUNTIME_EVENTS.agentRegistered,
      RUNTIME_EVENTS.agentUpdated,
      RUNTIME_EVENTS.agentUpdated,
    ]);
  });

  it('answers NOT_FOUND for an unknown id', () => {
    expect(() => registry.get('nobody')).toThrow(expect.objectContaining({ code: 'NOT_FOUND' }) as Error);
    expect(registry.find('nobody')).toBeUndefined();
  });

  it('finds every card offering a capability, sorted by id, with or without @version', async () => {
    await registry.upsert(card('b', [cap('demo.echo')]));
    await registry.upsert(card('a', [cap('demo.echo@2'), cap('demo.sum')]));
    await registry.upsert(card('c', [cap('demo.sum')]));
    expect(registry.byCapability('demo.echo').map((c) => c.id)).toEqual(['a', 'b']);
    expect(registry.byCapability('demo.echo@2').map((c) => c.id)).toEqual(['a']);
    expect(registry.byCapability('demo.sum').map((c) => c.id)).toEqual(['a', 'c']);
    expect(registry.byCapability('demo.none')).toEqual([]);
  });

  it('marks remote cards and keeps verb specs alongside', async () => {
    await registry.upsert(card('r', [cap('demo.echo')]), { origin: 'remote', verbs: [spec('demo.echo')] });
    expect(registry.get('r').origin).toBe('remote');
    expect(registry.verbSpec('r', 'demo.echo')?.category).toBe('query');
    expect(registry.verbSpec('r', 'demo.other')).toBeUndefined();
  });

  it('rejects a verb spec for a verb the card does not offer', async () => {
    const error = await rejection(
      registry.upsert(card('a', [cap('demo.echo')]), { verbs: [spec('demo.sum')] }),
    );
    expect(error.code).toBe('INVALID_PARAMS');
  });

  it('removes a card, and NOT_FOUND when removing it again', async () => {
    await registry.upsert(card('a', [cap('demo.echo')]));
    await registry.remove('a');
    expect(registry.find('a')).toBeUndefined();
    expect((await rejection(registry.remove('a'))).code).toBe('NOT_FOUND');
  });

  it('keeps cards losslessly through JSON and through the log', async () => {
    const original = card(
      'a',
      [
        cap('demo.echo', {
          type: 'object',
          properties: { n: { type: 'integer', maximum: 9007199254740991 } },
        }),
      ],
      {
        description: 'ünïcödé ✓',
        protocols: ['esrp', 'jsonrpc'],
        endpoints: [{ protocol: 'esrp', url: 'http://127.0.0.1:3100/v1' }],
        extensions: { _x_note: { nested: [1, 'two', null, true] } },
      },
    );
    const stored = await registry.upsert(original);
    expect(deserializeAgentCard(serializeAgentCard(stored))).toEqual(stored);
    expect(stored).toEqual({ ...original, revision: 1, origin: 'local' });
    const again = createRegistry({ log });
    await again.start();
    expect(again.get('a')).toEqual(stored);
    await again.stop();
  });

  it('round-trips arbitrary valid cards', async () => {
    const cardArb = fc.record({
      id: fc.string({ minLength: 1, maxLength: 12 }).filter((s) => s !== 'broadcast' && s !== '*'),
      name: fc.string({ minLength: 1, maxLength: 12 }),
      version: fc.string({ minLength: 1, maxLength: 8 }),
      tier: fc.constantFrom('L0' as const, 'L1' as const, 'L2' as const, 'L3' as const),
      capabilities: fc.constant([cap('demo.echo')]),
      description: fc.string(),
    });
    await fc.assert(
      fc.asyncProperty(cardArb, async (c) => {
        const stored = await registry.upsert(c);
        expect(deserializeAgentCard(serializeAgentCard(stored))).toEqual(stored);
        expect(registry.get(c.id)).toEqual(stored);
      }),
      { numRuns: 40 },
    );
  });

  it('is a projection of the log: a rebuild from scratch equals the live state', async () => {
    await registry.upsert(card('a', [cap('demo.echo')]));
    await registry.upsert(card('b', [cap('demo.echo')]));
    await registry.upsert(card('a', [cap('demo.sum')]));
    await registry.remove('b');
    await openEventLog(log).append({ type: 'other.thing', data: null });
    const check = await registry.verify();
    expect(check.ok).toBe(true);
    const rebuilt = await rebuildProjection(log, registryProjection);
    expect([...rebuilt.state.keys()]).toEqual(['a']);
    expect(rebuilt.state.get('a')?.card.revision).toBe(2);
  });

  it('refuses writes before start', async () => {
    const fresh = createRegistry({ log });
    expect((await rejection(fresh.upsert(card('z')))).code).toBe('UNAVAILABLE');
  });
});

describe.each(LOG_BACKENDS)('registry on the $name log', ({ make }) => {
  it('survives a restart: a new registry on the same log has the same cards and revisions', async () => {
    const { log, reopen, cleanup } = await make();
    let current = log;
    try {
      await log.start();
      const first = createRegistry({ log });
      await first.start();
      await first.upsert(card('a', [cap('demo.echo')]));
      await first.upsert(card('a', [cap('demo.echo')], { version: '2.0.0' }));
      await first.upsert(card('r', [cap('demo.echo')]), { origin: 'remote' });
      const before = first.list();
      await first.stop();
      await log.stop();
      current = reopen();
      await current.start();
      const second = createRegistry({ log: current });
      await second.start();
      expect(second.list()).toEqual(before);
      expect(second.get('a').revision).toBe(2);
      expect((await second.verify()).ok).toBe(true);
      await second.stop();
    } finally {
      await current.stop();
      await cleanup();
    }
  });
});
