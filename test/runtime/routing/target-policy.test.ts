import { describe, expect, it } from 'vitest';
import { PlexusError } from '../../../src/core/errors.js';
import {
  fallbackPolicies,
  matchPeer,
  parseTarget,
  targetOf,
  transportFor,
  type RouteTransport,
} from '../../../src/runtime/routing/index.js';
import { request } from '../helpers.js';

function thrown(run: () => unknown): PlexusError {
  try {
    run();
  } catch (error) {
    if (error instanceof PlexusError) return error;
    throw error;
  }
  throw new Error('expected a PlexusError');
}

describe('parseTarget', () => {
  it('reads local, http, https, p2p and mcp targets', () => {
    expect(parseTarget('local://soul')).toEqual({ scheme: 'local', text: 'local://soul', agent: 'soul' });
    expect(parseTarget('local://')).toEqual({ scheme: 'local', text: 'local://' });
    expect(parseTarget('http://127.0.0.1:3101/math/')).toMatchObject({
      scheme: 'http',
      url: 'http://127.0.0.1:3101/math',
    });
    expect(parseTarget('HTTPS://Api.Example.com/agent')).toMatchObject({
      scheme: 'https',
      url: 'https://api.example.com/agent',
    });
    expect(parseTarget('p2p://did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK')).toMatchObject({
      scheme: 'p2p',
    });
    expect(parseTarget('mcp://tool/browser')).toMatchObject({ scheme: 'mcp', rest: 'tool/browser' });
  });

  it('refuses an unknown scheme naming the supported ones', () => {
    const error = thrown(() => parseTarget('town://citizen/alpha'));
    expect(error.code).toBe('INVALID_PARAMS');
    expect(error.message).toMatch(/"town"/);
    expect(error.message).toMatch(/local:\/\/<agent>, http:\/\/host:port\[\/agent\]/);
  });

  it.each([
    ['no scheme', 'soul'],
    ['a query', 'http://127.0.0.1:3101/a?x=1'],
    ['credentials', 'http://u:p@127.0.0.1:3101'],
    ['a p2p target that is not a did:key', 'p2p://12D3KooW'],
    ['a path after local://agent', 'local://a/b'],
    ['a broken URL', 'http://[::1'],
  ])('refuses %s', (_why, text) => {
    expect(thrown(() => parseTarget(text)).code).toBe('INVALID_PARAMS');
  });

  it('reads the target of an envelope from _x_agentese_target, and refuses a non-string', () => {
    expect(targetOf(request('a.b.c', null))).toBeUndefined();
    expect(
      targetOf(request('a.b.c', null, 'x', { extensions: { _x_agentese_target: 'local://x' } })),
    ).toMatchObject({
      agent: 'x',
    });
    expect(
      thrown(() => targetOf(request('a.b.c', null, 'x', { extensions: { _x_agentese_target: 42 } }))).code,
    ).toBe('INVALID_PARAMS');
  });
});

describe('matchPeer', () => {
  const peers = new Set(['http://127.0.0.1:3101', 'http://10.0.0.2:3100/mesh']);
  it('matches a peer, a peer with an agent, and nothing else', () => {
    expect(matchPeer(peers, 'http://127.0.0.1:3101')).toEqual({ peer: 'http://127.0.0.1:3101' });
    expect(matchPeer(peers, 'http://127.0.0.1:3101/math')).toEqual({
      peer: 'http://127.0.0.1:3101',
      agent: 'math',
    });
    expect(matchPeer(peers, 'http://10.0.0.2:3100/mesh/echo')).toEqual({
      peer: 'http://10.0.0.2:3100/mesh',
      agent: 'echo',
    });
    expect(matchPeer(peers, 'http://127.0.0.1:3102/math')).toBeUndefined();
    expect(matchPeer(peers, 'http://127.0.0.1:3101/a/b')).toBeUndefined();
  });
});

describe('transportFor', () => {
  const local: RouteTransport = {
    name: 'local',
    supports: (t) => t.scheme === 'local',
    invoke: () => Promise.reject(new Error('unused')),
  };
  it('picks the first transport supporting the target', () => {
    expect(transportFor([local], parseTarget('local://x')).name).toBe('local');
  });
  it('answers UNAVAILABLE for p2p (no libp2p transport) and mcp, not retryable', () => {
    const p2p = thrown(() =>
      transportFor([local], parseTarget('p2p://did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK')),
    );
    expect(p2p.code).toBe('UNAVAILABLE');
    expect(p2p.retryable).toBe(false);
    expect(p2p.message).toMatch(/libp2p/);
    expect(thrown(() => transportFor([local], parseTarget('mcp://tool/browser'))).message).toMatch(/MCP/);
    expect(thrown(() => transportFor([local], parseTarget('http://127.0.0.1:1'))).message).toMatch(
      /configured peers/,
    );
  });
});

describe('fallbackPolicies', () => {
  const config = {
    policies: {
      'offline-first': ['local-cache', 'queue-for-sync'],
      'high-availability': ['secondary-region', 'local-cache', 'error'],
    },
    verbs: { 'math.expr.evaluate': 'offline-first' },
    groups: { 'secondary-region': ['http://127.0.0.1:3102', 'local://backup'] },
  };
  const policies = fallbackPolicies(config);

  it('has a built-in default of [error]', () => {
    expect(fallbackPolicies().select(request('a.b.c', null))).toEqual({
      name: 'default',
      steps: [{ kind: 'error', name: 'error' }],
    });
    expect(fallbackPolicies().usesCache).toBe(false);
    expect(policies.usesCache).toBe(true);
  });

  it('selects by envelope first, then by verb (any version), then the default', () => {
    const named = request('a.b.c', null, 'x', {
      extensions: { _x_agentese_fallback_policy: 'high-availability' },
    });
    expect(policies.select(named).name).toBe('high-availability');
    const steps = policies.select(named).steps;
    expect(steps[0]).toMatchObject({ kind: 'targets', name: 'secondary-region' });
    expect(steps[0]?.kind === 'targets' ? steps[0].targets.map((t) => t.text) : []).toEqual([
      'http://127.0.0.1:3102',
      'local://backup',
    ]);
    expect(policies.select(request('math.expr.evaluate@1', null)).name).toBe('offline-first');
    expect(policies.select(request('other.verb.run', null)).name).toBe('default');
  });

  it('accepts an inline chain in the envelope', () => {
    const chain = request('a.b.c', null, 'x', {
      extensions: { _x_agentese_fallback_policy: 'secondary-region → local-cache -> error' },
    });
    expect(policies.select(chain).steps.map((s) => s.kind)).toEqual(['targets', 'local-cache', 'error']);
  });

  it('refuses an unknown policy or step in the envelope, naming the known ones', () => {
    const unknown = thrown(() =>
      policies.select(
        request('a.b.c', null, 'x', { extensions: { _x_agentese_fallback_policy: 'cloud-llm' } }),
      ),
    );
    expect(unknown.code).toBe('INVALID_PARAMS');
    expect(unknown.message).toMatch(/high-availability, offline-first/);
    const step = thrown(() =>
      policies.select(
        request('a.b.c', null, 'x', {
          extensions: { _x_agentese_fallback_policy: 'local-cache → teleport' },
        }),
      ),
    );
    expect(step.message).toMatch(/unknown fallback step "teleport"/);
  });

  it.each([
    ['an empty policy', { policies: { p: [] } }, /at least one step/],
    ['an unknown step', { policies: { p: ['nowhere'] } }, /unknown fallback step "nowhere"/],
    ['a bad target', { policies: { p: ['town://x'] } }, /town/],
    ['a verb mapped to no policy', { verbs: { 'a.b.c': 'missing' } }, /no policy named "missing"/],
    ['a group named like a built-in', { groups: { error: ['local://x'] } }, /built-in step/],
    ['an empty group', { groups: { g: [] } }, /at least one target/],
    ['a bad policy name', { policies: { 'Bad Name': ['error'] } }, /must match/],
    ['an unknown default', { defaultPolicy: 'nope' }, /no policy named "nope"/],
  ])('refuses %s', (_why, bad, message) => {
    const error = thrown(() => fallbackPolicies(bad));
    expect(error.code).toBe('INVALID_PARAMS');
    expect(error.message).toMatch(message);
  });
});
