import fc from 'fast-check';
import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  AGENT_CARD_SCHEMA,
  deserializeAgentCard,
  findCapability,
  parseAgentCard,
  serializeAgentCard,
  validateAgentCard,
} from '../../../src/core/records/agent-card.js';
import type { AgentCapability, AgentCard, AgentEndpoint } from '../../../src/core/records/agent-card.js';
import type { RequiredKeys } from './helpers.js';
import { agentCardArb, errorOf, signatureArb } from './helpers.js';

const CARD: AgentCard = {
  id: 'did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK',
  name: 'Mercury',
  version: '1.2.0',
  tier: 'L1',
  capabilities: [
    {
      verb: 'soul.memory.recall@1',
      description: 'Recall a memory',
      input: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] },
      output: { type: ['object', 'null'] },
    },
    { verb: 'memory.search', input: true, output: true },
  ],
  protocols: ['esrp', 'a2a'],
  endpoints: [{ protocol: 'esrp', url: 'https://mercury.example:3100/v1' }],
  sandboxId: 'sb-1',
  revision: 3,
  origin: 'local',
  extensions: { _x_team: 'blue' },
};

describe('AgentCard schema', () => {
  it('is aligned with the AgentCard type', () => {
    expectTypeOf<keyof AgentCard>().toEqualTypeOf<keyof (typeof AGENT_CARD_SCHEMA)['properties']>();
    expectTypeOf<RequiredKeys<AgentCard>>().toEqualTypeOf<(typeof AGENT_CARD_SCHEMA)['required'][number]>();
    expectTypeOf<keyof AgentCapability>().toEqualTypeOf<
      keyof (typeof AGENT_CARD_SCHEMA)['properties']['capabilities']['items']['properties']
    >();
    expectTypeOf<keyof AgentEndpoint>().toEqualTypeOf<
      keyof (typeof AGENT_CARD_SCHEMA)['properties']['endpoints']['items']['properties']
    >();
  });

  it('accepts a full card and a minimal one', () => {
    expect(validateAgentCard(CARD)).toEqual([]);
    expect(validateAgentCard({ id: 'a', name: 'A', version: '1', tier: 'L3', capabilities: [] })).toEqual([]);
  });

  it('reports every missing required field (Nova26 Req. 1.4)', () => {
    expect(validateAgentCard({})).toEqual(
      ['id', 'name', 'version', 'tier', 'capabilities'].map((f) => ({
        pointer: '',
        message: `missing required property "${f}"`,
      })),
    );
  });

  it('reports every bad field with its pointer', () => {
    const problems = validateAgentCard({
      ...CARD,
      tier: 'L4',
      capabilities: [{ verb: 'Soul.memory', input: 3, output: true, extra: 1 }],
      endpoints: [{ protocol: 'esrp', url: 'not a uri' }],
      origin: 'elsewhere',
      revision: -1,
      extensions: { team: 'x' },
    });
    expect(problems).toEqual(
      expect.arrayContaining([
        { pointer: '/tier', message: 'must be one of L0, L1, L2, L3' },
        {
          pointer: '/capabilities/0/verb',
          message:
            'verb "Soul.memory": segment "Soul" must start with a lower-case letter and contain only a-z, 0-9 and _',
        },
        { pointer: '/capabilities/0/input', message: 'must be an object or a boolean' },
        { pointer: '/capabilities/0/extra', message: 'unknown property "extra" is not allowed here' },
        { pointer: '/endpoints/0/url', message: 'must be an absolute URI' },
        { pointer: '/origin', message: 'must be one of local, remote' },
        { pointer: '/revision', message: 'must be >= 0' },
        { pointer: '/extensions/team', message: 'property name "team" is not allowed here' },
      ]),
    );
    expect(problems.filter((p) => p.pointer === '/capabilities/0/verb')).toHaveLength(1);
  });

  it('rejects a verb offered twice, a verb with too many segments, and a reserved id', () => {
    const problems = validateAgentCard({
      ...CARD,
      id: 'broadcast',
      capabilities: [
        { verb: 'a.b.c', input: true, output: true },
        { verb: 'a.b.c', input: true, output: true },
        { verb: 'a.b.c.d', input: true, output: true },
      ],
    });
    expect(problems).toEqual([
      {
        pointer: '/capabilities/2/verb',
        message: 'verb "a.b.c.d" has 4 segments; at most three are allowed (namespace.resource.action)',
      },
      { pointer: '/id', message: '"broadcast" is reserved for addressing every agent and is no agent\'s id' },
      { pointer: '/capabilities/1/verb', message: 'verb "a.b.c" is already offered by /capabilities/0' },
    ]);
  });

  it('rejects a malformed signature block', () => {
    expect(
      validateAgentCard({ ...CARD, signature: { v: 1, ts: 1, nonce: 'x', from: 'a', pk: 'p', sig: 's' } }),
    ).toEqual(expect.arrayContaining([{ pointer: '/signature/v', message: 'must be 2' }]));
  });

  it('rejects something that is not an object', () => {
    expect(validateAgentCard(null)).toEqual([{ pointer: '', message: 'must be an object' }]);
  });
});

describe('parseAgentCard / deserializeAgentCard', () => {
  it('throws INVALID_PARAMS with every problem in details.problems', () => {
    const err = errorOf(() => parseAgentCard({ id: 'a' }));
    expect(err.code).toBe('INVALID_PARAMS');
    expect(err.message).toMatch(/^agent card is invalid: \(root\): missing required property "name"/);
    expect((err.details?.['problems'] as unknown[]).length).toBe(4);
  });

  it('throws PARSE_ERROR for text that is not JSON', () => {
    expect(errorOf(() => deserializeAgentCard('{')).code).toBe('PARSE_ERROR');
  });

  it('round-trips every valid card through JSON without loss (Req. 1.6, property)', () => {
    fc.assert(
      fc.property(agentCardArb, (card) => {
        expect(validateAgentCard(card)).toEqual([]);
        expect(deserializeAgentCard(serializeAgentCard(card))).toEqual(card);
      }),
      { numRuns: 300 },
    );
  });

  it('generated signatures are valid blocks', () => {
    fc.assert(
      fc.property(signatureArb, (signature) => {
        expect(validateAgentCard({ ...CARD, signature })).toEqual([]);
      }),
    );
  });
});

describe('findCapability', () => {
  it('finds by exact verb or by name without version', () => {
    expect(findCapability(CARD, 'soul.memory.recall@1')?.description).toBe('Recall a memory');
    expect(findCapability(CARD, 'soul.memory.recall')?.description).toBe('Recall a memory');
    expect(findCapability(CARD, 'soul.memory.recall@2')).toBeUndefined();
    expect(findCapability(CARD, 'memory.search')?.verb).toBe('memory.search');
  });
});
