import { afterEach, describe, expect, it } from 'vitest';
import type { AgentCard } from '../../../src/core/records/agent-card.js';
import { createRuntime, type Runtime } from '../../../src/runtime/index.js';
import { memoryEventLog, type EventLog } from '../../../src/store/index.js';
import {
  PEER_EXTENSION,
  nextPollDelay,
  peerDirectory,
  type PeerDirectory,
} from '../../../src/transports/peer/index.js';
import { manualTimer } from '../../support/manual-timer.js';
import { agent, closedPort, scriptedServer, type ScriptedServer } from './helpers.js';

interface Local {
  readonly runtime: Runtime;
  readonly log: EventLog;
}

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function local(agents = [agent('mine', { 'mine.do': () => null })]): Promise<Local> {
  const log = memoryEventLog();
  await log.start();
  const runtime = createRuntime({ log, agents });
  await runtime.start();
  cleanups.push(async () => {
    await runtime.stop({ drainMs: 0 });
    await log.stop();
  });
  return { runtime, log };
}

async function server(script: Parameters<typeof scriptedServer>[0]): Promise<ScriptedServer> {
  const s = await scriptedServer(script);
  cleanups.push(() => s.close());
  return s;
}

function directory(init: Parameters<typeof peerDirectory>[0]): PeerDirectory {
  const d = peerDirectory({ intervalMs: 3_600_000, ...init });
  cleanups.push(() => d.stop());
  return d;
}

function card(id: string, extra: Partial<AgentCard> = {}): AgentCard {
  return {
    id,
    name: `Agent ${id}`,
    version: '1',
    tier: 'L3',
    capabilities: [{ verb: `${id}.run`, input: true, output: true }],
    origin: 'local',
    revision: 7,
    ...extra,
  };
}

/** A peer whose card list the test changes. */
async function peer(initial: readonly AgentCard[]) {
  const state = { cards: [...initial], status: 200 };
  const s = await server(() => ({ status: state.status, body: { agents: state.cards } }));
  return { ...s, state };
}

describe('peerDirectory', () => {
  it('registers the peer’s local cards with origin remote, naming the peer', async () => {
    const { runtime } = await local();
    const p = await peer([card('alpha'), card('beta')]);
    const d = directory({ peers: [{ url: p.url }], runtime });
    const status = await d.refresh();
    expect(status).toEqual([{ url: p.url, reachable: true, failures: 0, agents: ['alpha', 'beta'] }]);
    const alpha = runtime.agents.registry.get('alpha');
    expect(alpha.origin).toBe('remote');
    expect(alpha.extensions?.[PEER_EXTENSION]).toBe(p.url);
    expect(alpha.revision).toBe(1);
    expect(d.peerFor(alpha)).toEqual({ url: p.url });
    expect(runtime.agents.registry.byCapability('beta.run').map((c) => c.id)).toEqual(['beta']);
    expect(runtime.agents.registry.get('mine').origin).toBe('local');
  });

  it('never takes cards that are remote on the peer (no loops)', async () => {
    const { runtime } = await local();
    const p = await peer([card('alpha'), card('relayed', { origin: 'remote' })]);
    await directory({ peers: [{ url: p.url }], runtime }).refresh();
    expect(runtime.agents.registry.find('relayed')).toBeUndefined();
    expect(runtime.agents.registry.find('alpha')).toBeDefined();
  });

  it('accepts a bare array of cards too', async () => {
    const { runtime } = await local();
    const s = await server(() => ({ status: 200, body: [card('alpha')] }));
    await directory({ peers: [{ url: s.url }], runtime }).refresh();
    expect(runtime.agents.registry.find('alpha')?.card.origin).toBe('remote');
  });

  it('writes nothing when the cards did not change, and updates a changed card', async () => {
    const { runtime, log } = await local();
    const p = await peer([card('alpha')]);
    const d = directory({ peers: [{ url: p.url }], runtime });
    await d.refresh();
    const before = (await log.head()).seq;
    p.state.cards = [card('alpha', { revision: 8 })];
    await d.refresh();
    expect((await log.head()).seq).toBe(before);
    p.state.cards = [card('alpha', { description: 'now described' })];
    await d.refresh();
    expect(runtime.agents.registry.get('alpha').description).toBe('now described');
    expect(runtime.agents.registry.get('alpha').revision).toBe(2);
  });

  it('removes cards that disappear from the peer', async () => {
    const { runtime } = await local();
    const p = await peer([card('alpha'), card('beta')]);
    const d = directory({ peers: [{ url: p.url }], runtime });
    await d.refresh();
    p.state.cards = [card('beta')];
    const [status] = await d.refresh();
    expect(status?.agents).toEqual(['beta']);
    expect(runtime.agents.registry.find('alpha')).toBeUndefined();
    expect(runtime.agents.registry.get('mine').origin).toBe('local');
  });

  it('keeps a local card over a peer’s card with the same id; the first peer wins over the second', async () => {
    const { runtime } = await local();
    const first = await peer([card('mine'), card('shared')]);
    const second = await peer([card('shared', { description: 'second' })]);
    const warnings: string[] = [];
    const d = directory({
      peers: [{ url: first.url }, { url: second.url }],
      runtime,
      logger: { info: () => undefined, error: () => undefined, warn: (_o, msg) => warnings.push(msg ?? '') },
    });
    await d.refresh();
    await d.refresh();
    expect(runtime.agents.registry.get('mine').origin).toBe('local');
    expect(runtime.agents.registry.get('shared').extensions?.[PEER_EXTENSION]).toBe(first.url);
    expect(runtime.agents.registry.get('shared').description).toBeUndefined();
    // warned once per id and peer, not once per poll
    expect(warnings.filter((w) => w.includes('already has'))).toHaveLength(2);
  });

  it('counts failures of a down peer without throwing, removes its cards after N failures, restores them later', async () => {
    const { runtime } = await local();
    const p = await peer([card('alpha')]);
    const d = directory({ peers: [{ url: p.url }], runtime, removeAfterFailures: 2 });
    await d.refresh();
    p.state.status = 503;
    const [first] = await d.refresh();
    expect(first).toMatchObject({ reachable: false, failures: 1, agents: ['alpha'] });
    expect(first?.lastError).toMatch(/503/);
    const [second] = await d.refresh();
    expect(second).toMatchObject({ reachable: false, failures: 2, agents: [] });
    expect(runtime.agents.registry.find('alpha')).toBeUndefined();
    p.state.status = 200;
    const [back] = await d.refresh();
    expect(back).toMatchObject({ reachable: true, failures: 0, agents: ['alpha'] });
  });

  it('survives an unreachable peer and a peer answering garbage', async () => {
    const { runtime } = await local();
    const port = await closedPort();
    const garbage = await server(() => ({ status: 200, body: 'not json' }));
    const wrong = await server(() => ({ status: 200, body: { agents: 'nope' } }));
    const d = directory({
      peers: [{ url: `http://127.0.0.1:${String(port)}` }, { url: garbage.url }, { url: wrong.url }],
      runtime,
    });
    const status = await d.refresh();
    expect(status.map((s) => s.reachable)).toEqual([false, false, false]);
    expect(status.every((s) => s.failures === 1 && typeof s.lastError === 'string')).toBe(true);
  });

  it('skips an invalid card and keeps the valid ones', async () => {
    const { runtime } = await local();
    const s = await server(() => ({ status: 200, body: { agents: [{ id: 'broken' }, card('alpha')] } }));
    await directory({ peers: [{ url: s.url }], runtime }).refresh();
    expect(runtime.agents.registry.find('broken')).toBeUndefined();
    expect(runtime.agents.registry.find('alpha')).toBeDefined();
  });

  it('sends the peer token as a bearer credential', async () => {
    const { runtime } = await local();
    const s = await server(() => ({ status: 200, body: { agents: [] } }));
    await directory({ peers: [{ url: s.url, token: 'tok' }], runtime }).refresh();
    expect(s.received[0]).toMatchObject({ method: 'GET', url: '/agents?origin=local' });
    expect(s.received[0]!.headers.authorization).toBe('Bearer tok');
  });

  it('start() removes cards of peers no longer configured and polls at once; stop() is safe twice', async () => {
    const { runtime } = await local();
    const old = await peer([card('ghost')]);
    await directory({ peers: [{ url: old.url }], runtime }).refresh();
    expect(runtime.agents.registry.find('ghost')).toBeDefined();
    const p = await peer([card('alpha')]);
    const timer = manualTimer();
    const d = directory({ peers: [{ url: p.url }], runtime, timer });
    await d.start();
    await d.start();
    expect(runtime.agents.registry.find('ghost')).toBeUndefined();
    const first = await timer.next();
    expect(first.delayMs).toBe(0);
    first.fire();
    // The next poll is scheduled once the first one has been applied.
    await timer.next();
    expect(runtime.agents.registry.find('alpha')).toBeDefined();
    await d.stop();
    await d.stop();
  });

  it('polls again after the interval', async () => {
    const { runtime } = await local();
    const p = await peer([card('alpha')]);
    const timer = manualTimer();
    const d = directory({ peers: [{ url: p.url }], runtime, intervalMs: 5, timer, random: () => 0.5 });
    await d.start();
    let next = await timer.next();
    for (let poll = 1; poll <= 3; poll++) {
      next.fire();
      next = await timer.next();
      expect(next.delayMs).toBe(5);
    }
    expect(p.received.length).toBeGreaterThanOrEqual(3);
    await d.stop();
    const after = p.received.length;
    expect(next.cancelled).toBe(true);
    expect(timer.pending()).toEqual([]);
    expect(p.received.length).toBe(after);
  });

  it('backs off a failing peer: the interval doubles per failure, up to the cap', () => {
    expect([0, 1, 2, 3, 4, 5, 100].map((f) => nextPollDelay(10_000, 60_000, f))).toEqual([
      10_000, 10_000, 20_000, 40_000, 60_000, 60_000, 60_000,
    ]);
  });

  it('validates its options', async () => {
    const { runtime } = await local();
    expect(() => peerDirectory({ peers: [{ url: 'ftp://x' }], runtime })).toThrow(/http or https/);
    expect(() => peerDirectory({ peers: [{ url: 'not a url' }], runtime })).toThrow(/absolute URL/);
    expect(() => peerDirectory({ peers: [{ url: 'http://a:1' }, { url: 'http://a:1/' }], runtime })).toThrow(
      /twice/,
    );
    expect(() => peerDirectory({ peers: [], runtime, intervalMs: 0 })).toThrow(/intervalMs/);
    expect(() => peerDirectory({ peers: [{ url: 'http://u:p@a:1' }], runtime })).toThrow(/credentials/);
  });
});
