import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  abilityCovers,
  caveatNarrows,
  caveatProblem,
  caveatsCovered,
  effectAbility,
  resourceCovers,
  resourceUri,
  scopeAbility,
  verbResource,
} from '../../../src/security/ucan/capability.js';
import { expectPlexusError } from '../expect-error.js';

describe('AGENTESE → UCAN mapping', () => {
  it('maps resources onto agentese: URIs', () => {
    expect(resourceUri('session/*')).toBe('agentese:session/*');
    expect(resourceUri('memory_crystals')).toBe('agentese:memory_crystals');
    expect(resourceUri('*')).toBe('agentese:*');
    expect(resourceUri('agentese:verb/soul.*')).toBe('agentese:verb/soul.*');
    expect(resourceUri('https://example.com/x')).toBe('https://example.com/x');
    expect(resourceUri('tool/browser:1')).toBe('agentese:tool/browser:1');
    expect(verbResource('soul.memory.recall')).toBe('agentese:verb/soul.memory.recall');
  });

  it('maps scopes and effects onto abilities', () => {
    expect(scopeAbility('soul:read')).toBe('soul/read');
    expect(scopeAbility('Atelier:WRITE')).toBe('atelier/write');
    expect(scopeAbility('soul:*')).toBe('soul/*');
    expect(scopeAbility('*')).toBe('*');
    expect(scopeAbility('crud/update')).toBe('crud/update');
    expect(effectAbility('writes')).toBe('effect/writes');
    for (const bad of ['soul', 'soul:', ':read', 'a b:c', '']) {
      expectPlexusError(() => scopeAbility(bad), 'INVALID_PARAMS');
    }
  });
});

describe('covers', () => {
  it('matches resources exactly or by a trailing *', () => {
    expect(resourceCovers('agentese:*', 'agentese:session/1')).toBe(true);
    expect(resourceCovers('agentese:session/*', 'agentese:session/1/a')).toBe(true);
    expect(resourceCovers('agentese:session/*', 'agentese:session/a*')).toBe(true);
    expect(resourceCovers('agentese:session/*', 'agentese:session')).toBe(false);
    expect(resourceCovers('agentese:session/*', 'agentese:sessions/1')).toBe(false);
    expect(resourceCovers('agentese:session/1', 'agentese:session/*')).toBe(false);
    expect(resourceCovers('agentese:*', 'https://x')).toBe(false);
  });

  it('matches abilities case-insensitively, with top and namespace wildcards', () => {
    expect(abilityCovers('*', 'soul/read')).toBe(true);
    expect(abilityCovers('soul/*', 'SOUL/Read')).toBe(true);
    expect(abilityCovers('soul/*', 'soul/*')).toBe(true);
    expect(abilityCovers('soul/read', 'soul/*')).toBe(false);
    expect(abilityCovers('soul/read', '*')).toBe(false);
    expect(abilityCovers('soul/*', 'soulx/read')).toBe(false);
  });

  it('is reflexive and transitive on generated patterns', () => {
    const seg = fc.constantFrom('a', 'b', 'ab');
    const pattern = fc
      .tuple(fc.array(seg, { minLength: 1, maxLength: 3 }), fc.boolean())
      .map(([parts, star]) => `agentese:${parts.join('/')}${star ? '/*' : ''}`);
    fc.assert(
      fc.property(pattern, pattern, pattern, (x, y, z) => {
        expect(resourceCovers(x, x)).toBe(true);
        if (resourceCovers(x, y) && resourceCovers(y, z)) expect(resourceCovers(x, z)).toBe(true);
      }),
    );
  });
});

describe('caveats', () => {
  // UCAN 0.10 §3.2.6.3 table, with x = {a: 1}, y = {b: 2}, z = {c: 3}.
  const x = { a: 1 };
  const y = { b: 2 };
  it('follows the attenuation table of the spec', () => {
    expect(caveatsCovered([{}], [{}])).toBe(true);
    expect(caveatsCovered([x], [x])).toBe(true);
    expect(caveatsCovered([x], [{}])).toBe(false);
    expect(caveatsCovered([{}], [x])).toBe(true);
    expect(caveatsCovered([x], [y])).toBe(false);
    expect(caveatsCovered([x, y], [x])).toBe(true);
    expect(caveatsCovered([x, y], [x, { ...y, c: 3 }])).toBe(true);
    expect(caveatsCovered([x, y], [x, y, { c: 3 }])).toBe(false);
    expect(caveatsCovered([x], [])).toBe(true);
  });

  it('lets a budget only shrink, per meter, and add meters', () => {
    const parent = { budget: { tokens: 100, compute: 5 } };
    expect(caveatNarrows(parent, { budget: { tokens: 100, compute: 5 } })).toBe(true);
    expect(caveatNarrows(parent, { budget: { tokens: 10, compute: 0, gpu: 1 } })).toBe(true);
    expect(caveatNarrows(parent, { budget: { tokens: 101, compute: 5 } })).toBe(false);
    expect(caveatNarrows(parent, { budget: { tokens: 10 } })).toBe(false);
    expect(caveatNarrows(parent, { budget: 'lots' })).toBe(false);
    expect(caveatNarrows({ deep: { a: [1, 2] } }, { deep: { a: [1, 2] } })).toBe(true);
    expect(caveatNarrows({ deep: { a: [1, 2] } }, { deep: { a: [2, 1] } })).toBe(false);
  });

  it('checks tenant, session and budget against a request, and refuses unknown caveats', () => {
    expect(caveatProblem({}, {})).toBeUndefined();
    expect(caveatProblem({ tenant: 'acme' }, { tenantId: 'acme' })).toBeUndefined();
    expect(caveatProblem({ tenant: 'acme' }, { tenantId: 'other' })).toContain('tenant "acme"');
    expect(caveatProblem({ tenant: 'acme' }, {})).toBeDefined();
    expect(caveatProblem({ session: 's1' }, { sessionId: 's1' })).toBeUndefined();
    expect(caveatProblem({ session: 's1' }, { sessionId: 's2' })).toContain('session');
    expect(caveatProblem({ budget: { tokens: 5 } }, { charges: ['tokens'] })).toBeUndefined();
    expect(caveatProblem({ budget: { tokens: 5 } }, { charges: ['compute'] })).toContain('compute');
    expect(caveatProblem({ budget: { tokens: 1.5 } }, {})).toContain('micro-units');
    expect(caveatProblem({ color: 'red' }, {})).toContain('not understood');
  });
});
