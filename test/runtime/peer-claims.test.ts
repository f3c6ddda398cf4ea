/**
 * Peer cards and the router's ranking (issue 15 items 3 and 5; MESH-43…45): what a mesh peer
 * may claim (reputation 0…1, a region, tools; never a latency) and how a claim weighs against
 * what this node observed; candidates ranked by load, then reputation, then latency, then id —
 * the same choice whatever the order they come in.
 */
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { PlexusError, type PlexusErrorCode } from '../../src/core/errors.js';
import type { JsonObject, JsonValue } from '../../src/core/json.js';
import type { AgentCard } from '../../src/core/records/agent-card.js';
import {
  PRIOR_WEIGHT,
  REPUTATION_PRIOR,
  agentOutcomes,
  blendReputation,
  cardGeoProblem,
  geoProblem,
  peerCardProblem,
  peerCardsPort,
  reputationProblem,
  selectCandidate,
  type AgentRank,
  type Candidate,
  type PeerCard,
  type RouteState,
} from '../../src/runtime/index.js';
import { REMOTE_MESH_PEER_EXTENSION } from '../../src/runtime/routing/index.js';
import { capabilityClaimsProblem } from '../../src/transports/mesh/capability-gossip.js';
import { agent, cap, card, request, startRuntime } from './helpers.js';

const meshCard = (id: string, owner: string): AgentCard => ({
  ...card(id, [cap('demo.echo')]),
  origin: 'remote',
  extensions: { [REMOTE_MESH_PEER_EXTENSION]: owner },
});

describe('peer card claims at the gossip boundary', () => {
  it('accepts a well-formed card', () => {
    const good: JsonObject = {
      reputation: 0.94,
      geo: 'us-east',
      taskTypes: ['search.web'],
      tools: [
        {
          toolId: 'tool-8f3a2b',
          name: 'web-search',
          description: 'Full-text web search',
          capabilities: ['search'],
          schema: { input: { type: 'object' }, output: true },
          geo: 'eu-west-1',
        },
      ],
    };
    expect(peerCardProblem(good)).toBeUndefined();
    expect(peerCardProblem({})).toBeUndefined();
  });

  it.each<[string, JsonValue, RegExp]>([
    ['a reputation above 1', { reputation: 1.5 }, /within 0…1/],
    ['a negative reputation', { reputation: -0.1 }, /within 0…1/],
    ['a reputation that is a string', { reputation: '0.9' }, /within 0…1/],
    ['a declared latency', { latencyMs: 1 }, /latency is measured by the receiving node/],
    ['a declared latency (seed name)', { latency: 0 }, /never declared/],
    ['a region with spaces', { geo: 'us east' }, /not letters and digits/],
    ['a region that is a number', { geo: 42 }, /must be a string/],
    ['an overlong region', { geo: 'a'.repeat(65) }, /at most 64/],
    ['an unknown field', { trust: 1 }, /unknown field/],
    ['task types that are not strings', { taskTypes: [1] }, /taskTypes/],
    [
      'a tool without id',
      { tools: [{ name: 'x', description: '', capabilities: [], schema: { input: true, output: true } }] },
      /toolId/,
    ],
    [
      'a tool with a bad region',
      {
        tools: [
          {
            toolId: 't',
            name: 'x',
            description: '',
            capabilities: [],
            schema: { input: true, output: true },
            geo: '../x',
          },
        ],
      },
      /tools\[0\]\.geo/,
    ],
    [
      'a tool with a bad schema',
      {
        tools: [
          { toolId: 't', name: 'x', description: '', capabilities: [], schema: { input: 3, output: true } },
        ],
      },
      /schema/,
    ],
    ['too many tools', { tools: Array.from({ length: 257 }, () => ({})) }, /at most 256/],
    ['not an object', [1], /must be an object/],
  ])('refuses %s', (_what, value, why) => {
    expect(peerCardProblem(value)).toMatch(why);
  });

  it('refuses a capability message whose peer card or card region is forged', () => {
    const message = (extra: JsonObject): JsonObject => ({ kind: 'full', cards: [], removed: [], ...extra });
    expect(capabilityClaimsProblem(message({ peer: { reputation: 0.5, geo: 'us' } }))).toBeUndefined();
    expect(capabilityClaimsProblem(message({ peer: { reputation: 2 } }))).toMatch(/within 0…1/);
    expect(capabilityClaimsProblem(message({ peer: { latencyMs: 3 } }))).toMatch(/latency/);
    const badGeo = { id: 'a', extensions: { _x_plexus_geo: 'us/east' } };
    expect(capabilityClaimsProblem(message({ cards: [badGeo] }))).toMatch(/card "a".*region/);
    expect(cardGeoProblem({ id: 'a', extensions: { _x_plexus_geo: 'us-east' } })).toBeUndefined();
    expect(cardGeoProblem({ id: 'a' })).toBeUndefined();
  });

  it('takes every region made of words and no other string', () => {
    fc.assert(
      fc.property(fc.array(fc.stringMatching(/^[a-z0-9]{1,6}$/), { minLength: 1, maxLength: 5 }), (parts) => {
        expect(geoProblem(parts.join('-'))).toBeUndefined();
      }),
    );
    fc.assert(
      fc.property(fc.string({ maxLength: 20 }), (text) => {
        const ok = /^[A-Za-z0-9]+(?:-[A-Za-z0-9]+)*$/.test(text);
        expect(geoProblem(text) === undefined).toBe(ok);
      }),
    );
    fc.assert(
      fc.property(fc.double(), (x) => {
        expect(reputationProblem(x) === undefined).toBe(Number.isFinite(x) && x >= 0 && x <= 1);
      }),
    );
  });
});

describe('what this node observed', () => {
  const cardsOf = (peers: Record<string, Partial<PeerCard>>) => ({
    card: (peerId: string): PeerCard | undefined =>
      peers[peerId] === undefined ? undefined : { peerId, taskTypes: [], tools: [], ...peers[peerId] },
  });

  it('weighs a peer’s claim as ten calls, and its own calls over it', () => {
    const outcomes = agentOutcomes(cardsOf({ liar: { reputation: 1, latencyMs: 7 } }));
    const liar = meshCard('liar-agent', 'liar');
    expect(outcomes.rank(liar)).toEqual({ reputation: 1, latencyMs: 7 });
    for (let i = 0; i < 30; i++) outcomes.record(liar, 'INTERNAL', 40);
    // (1·10 + 0) / (10 + 30)
    expect(outcomes.rank(liar)).toEqual({ reputation: 0.25, latencyMs: 40 });
    const unknown = meshCard('quiet', 'nobody');
    expect(outcomes.rank(unknown)).toEqual({ reputation: REPUTATION_PRIOR, latencyMs: undefined });
  });

  it('counts successes and failures of the agent, not refusals of the caller', () => {
    const outcomes = agentOutcomes(peerCardsPort());
    const local = card('local', [cap('demo.echo')]);
    const refusals: PlexusErrorCode[] = ['INVALID_PARAMS', 'FORBIDDEN', 'CANCELLED', 'NOT_FOUND'];
    for (const code of refusals) outcomes.record(local, code, 5);
    expect(outcomes.of('local')).toBeUndefined();
    outcomes.record(local, undefined, 10);
    outcomes.record(local, 'TIMEOUT', 30);
    outcomes.record(local, 'PEER_UNAVAILABLE', Number.NaN);
    expect(outcomes.of('local')).toEqual({ calls: 3, successes: 1, totalMs: 40 });
    expect(outcomes.localReputation()).toBe(blendReputation(REPUTATION_PRIOR, 1, 3));
    // a remote agent's calls do not move this node's own reputation
    outcomes.record(meshCard('far', 'p'), undefined, 1);
    expect(outcomes.localReputation()).toBe(blendReputation(REPUTATION_PRIOR, 1, 3));
  });

  it('blends within 0…1 whatever the calls', () => {
    fc.assert(
      fc.property(fc.double({ min: 0, max: 1, noNaN: true }), fc.nat(1000), fc.nat(1000), (prior, a, b) => {
        const calls = Math.max(a, b);
        const successes = Math.min(a, b);
        const r = blendReputation(prior, successes, calls);
        expect(r).toBeGreaterThanOrEqual(0);
        expect(r).toBeLessThanOrEqual(1);
        if (calls === 0) expect(r).toBeCloseTo(prior, 4);
        expect(PRIOR_WEIGHT).toBe(10);
      }),
    );
  });

  it('the port answers the last source plugged in, nothing once unplugged', () => {
    const port = peerCardsPort();
    expect(port.card('p')).toBeUndefined();
    const unplug = port.provide({
      card: (id) => ({ peerId: id, taskTypes: [], tools: [], latencyMs: 3 }),
      cards: () => [],
    });
    expect(port.card('p')?.latencyMs).toBe(3);
    unplug();
    expect(port.card('p')).toBeUndefined();
  });
});

describe('the router’s ranking', () => {
  function candidates(...ids: string[]): Candidate[] {
    return ids.map((id) => {
      const capability = cap('demo.echo');
      return { card: card(id, [capability]), capability };
    });
  }
  const state = (
    loads: Record<string, number>,
    ranks: Record<string, AgentRank>,
    down: readonly string[] = [],
  ): RouteState => ({
    load: (c) => loads[c.id] ?? 0,
    rank: (c) => ranks[c.id] ?? { reputation: 0.5, latencyMs: undefined },
    unavailable: (c) => (down.includes(c.id) ? new PlexusError('UNAVAILABLE', `${c.id} down`) : undefined),
  });

  it('orders by load, then reputation, then latency, then id', () => {
    const r = (reputation: number, latencyMs?: number): AgentRank => ({ reputation, latencyMs });
    const pick = (loads: Record<string, number>, ranks: Record<string, AgentRank>, down: string[] = []) =>
      selectCandidate(candidates('a', 'b', 'c'), state(loads, ranks, down)).card.id;
    expect(pick({}, { a: r(0.5), b: r(0.9), c: r(0.7) })).toBe('b');
    expect(pick({ b: 1 }, { a: r(0.5), b: r(0.9), c: r(0.7) })).toBe('c');
    expect(pick({}, { a: r(0.9, 50), b: r(0.9, 5), c: r(0.9, 20) })).toBe('b');
    expect(pick({}, { a: r(0.9, 5), b: r(0.9, 5), c: r(0.9, 5) })).toBe('a');
    expect(pick({}, { a: r(0.5), b: r(0.9), c: r(0.7) }, ['b'])).toBe('c');
  });

  it('is deterministic whatever the order of the candidates', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.string({ minLength: 1, maxLength: 4 }), { minLength: 1, maxLength: 8 }),
        fc.array(fc.tuple(fc.nat(2), fc.constantFrom(0.2, 0.5, 0.9), fc.option(fc.nat(3))), {
          minLength: 8,
          maxLength: 8,
        }),
        (ids, rows) => {
          const loads: Record<string, number> = {};
          const ranks: Record<string, AgentRank> = {};
          ids.forEach((id, i) => {
            const [load, reputation, latency] = rows[i] ?? [0, 0.5, null];
            loads[id] = load;
            ranks[id] = { reputation, latencyMs: latency ?? undefined };
          });
          const chosen = selectCandidate(candidates(...ids), state(loads, ranks)).card.id;
          const reversed = selectCandidate(candidates(...[...ids].reverse()), state(loads, ranks)).card.id;
          expect(reversed).toBe(chosen);
          const key = (id: string) => [
            loads[id] ?? 0,
            -(ranks[id]?.reputation ?? 0),
            ranks[id]?.latencyMs ?? 0,
          ];
          const best = [...ids].sort((x, y) => {
            const [a, b] = [key(x), key(y)];
            for (let i = 0; i < 3; i++) if (a[i] !== b[i]) return (a[i] ?? 0) - (b[i] ?? 0);
            return x < y ? -1 : x > y ? 1 : 0;
          })[0];
          expect(chosen).toBe(best);
        },
      ),
    );
  });
});

describe('a runtime’s capability calls', () => {
  const closers: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const close of closers.splice(0)) await close();
  });

  it('move away from an agent that failed, and stay with one that serves', async () => {
    let aliveA = true;
    const h = await startRuntime({
      agents: [
        agent('a', {
          'demo.echo': () => {
            if (aliveA) return 'a';
            throw new PlexusError('UNAVAILABLE', 'a is failing');
          },
        }),
        agent('b', { 'demo.echo': () => 'b' }),
      ],
    });
    closers.push(() => h.close());
    const call = async () =>
      (await h.runtime.invoke(request('demo.echo', {}), { face: 'internal', idempotencyKey: randomUUID() }))
        .envelope;
    // equal at first: the smaller id
    expect((await call()).data).toBe('a');
    // a's success ranks it above b (untried)
    expect((await call()).data).toBe('a');
    aliveA = false;
    // a: (0.5·10 + 2 successes) / (10 + calls). One failure leaves it above b's 0.5 (7/13), two
    // tie it (7/14: then the lower latency wins, b's unknown counting as 0), three put it below.
    let failures = 0;
    for (let i = 0; i < 5; i++) {
      const answer = await call();
      if (answer.kind === 'response') {
        expect(answer.data).toBe('b');
        break;
      }
      failures++;
    }
    expect([2, 3]).toContain(failures);
    const a = h.runtime.agents.outcomes.rank(h.runtime.agents.registry.get('a'));
    expect(a.reputation).toBe(blendReputation(REPUTATION_PRIOR, 2, 2 + failures));
    expect(a.reputation).toBeLessThanOrEqual(REPUTATION_PRIOR);
    expect((await call()).data).toBe('b');
    expect(h.runtime.agents.outcomes.of('b')).toEqual(expect.objectContaining({ calls: 2, successes: 2 }));
  });
});
