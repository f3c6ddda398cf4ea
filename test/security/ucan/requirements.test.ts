import { describe, expect, it } from 'vitest';
import type { VerbSpec } from '../../../src/core/records/verb-spec.js';
import { capabilityEntries } from '../../../src/security/ucan/capability.js';
import { capabilitiesOf } from '../../../src/security/ucan/delegate.js';
import {
  assertCovers,
  unionRequirements,
  verbRequirements,
} from '../../../src/security/ucan/requirements.js';
import { expectRefusal } from './fixtures.js';

function spec(extra: Partial<VerbSpec>): VerbSpec {
  return {
    name: 'atelier.session.start',
    version: 1,
    status: 'stable',
    input: true,
    output: true,
    effects: {},
    capabilities: [],
    category: 'mutation',
    deterministic: false,
    ...extra,
  };
}

const start = spec({
  capabilities: ['atelier:write'],
  effects: { writes: ['session_registry'], charges: ['tokens'], emits: [] },
});

describe('verbRequirements', () => {
  it('needs each scope on the verb and each effect on its resources', () => {
    const verb = {
      resource: 'agentese:verb/atelier.session.start',
      ability: '*',
      kind: 'verb',
      scope: 'atelier.session.start',
    };
    expect(verbRequirements(start)).toEqual([
      verb,
      {
        resource: 'agentese:verb/atelier.session.start',
        ability: 'atelier/write',
        kind: 'scope',
        scope: 'atelier:write',
      },
      {
        resource: 'agentese:session_registry',
        ability: 'effect/writes',
        kind: 'effect',
        scope: 'writes:session_registry',
      },
      { resource: 'agentese:tokens', ability: 'effect/charges', kind: 'effect', scope: 'charges:tokens' },
      {
        resource: 'agentese:verb/atelier.session.start',
        ability: 'effect/emits',
        kind: 'effect',
        scope: 'emits',
      },
    ]);
    expect(verbRequirements(start)).toBe(verbRequirements(start));
    expect(verbRequirements(spec({}))).toEqual([verb]);
  });

  it('merges the requirements of several candidates without duplicates', () => {
    const other = spec({ capabilities: ['atelier:write', 'soul:read'] });
    const merged = unionRequirements([verbRequirements(start), verbRequirements(other)]);
    expect(merged.map((r) => r.scope)).toEqual([
      'atelier.session.start',
      'atelier:write',
      'writes:session_registry',
      'charges:tokens',
      'emits',
      'soul:read',
    ]);
  });
});

describe('assertCovers', () => {
  const full = capabilityEntries(
    capabilitiesOf({ scopes: ['atelier:write'], effects: ['writes:session_*', 'charges', 'emits'] }),
  );

  it('passes when every scope and effect is granted', () => {
    expect(() => {
      assertCovers(full, verbRequirements(start), {}, start.name);
    }).not.toThrow();
  });

  it('names the missing scope', () => {
    const noScope = capabilityEntries(capabilitiesOf({ effects: ['writes', 'charges', 'emits'] }));
    const error = expectRefusal(
      () => {
        assertCovers(noScope, verbRequirements(start), {}, start.name);
      },
      'FORBIDDEN',
      'missing-scope',
    );
    expect(error.details).toMatchObject({
      scope: 'atelier:write',
      ability: 'atelier/write',
      resource: 'agentese:verb/atelier.session.start',
      verb: 'atelier.session.start',
    });
    expect(error.message).toContain('atelier:write');
  });

  it('names the missing effect', () => {
    const noWrite = capabilityEntries(
      capabilitiesOf({ scopes: ['atelier:write'], effects: ['charges', 'emits'] }),
    );
    const error = expectRefusal(
      () => {
        assertCovers(noWrite, verbRequirements(start), {}, start.name);
      },
      'FORBIDDEN',
      'missing-effect',
    );
    expect(error.details).toMatchObject({ scope: 'writes:session_registry' });
  });

  it('only grants under caveats the request meets', () => {
    const bound = capabilityEntries(
      capabilitiesOf({
        all: true,
        caveats: [
          { tenant: 'acme', budget: { tokens: 1_000_000 } },
          { tenant: 'beta', session: 's9' },
        ],
      }),
    );
    const reqs = verbRequirements(start);
    expect(() => {
      assertCovers(bound, reqs, { tenantId: 'acme', charges: ['tokens'] }, start.name);
    }).not.toThrow();
    expect(() => {
      assertCovers(bound, reqs, { tenantId: 'beta', sessionId: 's9' }, start.name);
    }).not.toThrow();
    expectRefusal(
      () => {
        assertCovers(bound, reqs, { tenantId: 'beta', sessionId: 's1' }, start.name);
      },
      'FORBIDDEN',
      'caveat',
    );
    expectRefusal(
      () => {
        assertCovers(bound, reqs, { tenantId: 'acme', charges: ['gpu'] }, start.name);
      },
      'FORBIDDEN',
      'caveat',
    );
  });

  it('grants nothing through an empty caveat list', () => {
    const none = capabilityEntries({ 'agentese:*': { '*': [] } });
    expectRefusal(
      () => {
        assertCovers(none, verbRequirements(start), {}, start.name);
      },
      'FORBIDDEN',
      'missing-verb',
    );
  });

  it('needs a capability on the verb (or a pattern covering it) even when the verb declares nothing', () => {
    const bare = spec({ name: 'math.evaluate', category: 'query' });
    const echoOnly = capabilityEntries({ 'agentese:verb/echo.echo': { '*': [{}] } });
    const error = expectRefusal(
      () => {
        assertCovers(echoOnly, verbRequirements(bare), {}, bare.name);
      },
      'FORBIDDEN',
      'missing-verb',
    );
    expect(error.details?.['resource']).toBe('agentese:verb/math.evaluate');
    for (const resource of [
      'agentese:verb/math.evaluate',
      'agentese:verb/math.*',
      'agentese:verb/*',
      'agentese:*',
    ]) {
      const entries = capabilityEntries({ [resource]: { 'any/thing': [{}] } });
      expect(assertCovers(entries, verbRequirements(bare), {}, bare.name), resource).toBe(true);
    }
    for (const resource of ['agentese:verb/math.evaluate.x', 'agentese:verb/echo.*', 'agentese:session/*']) {
      const entries = capabilityEntries({ [resource]: { '*': [{}] } });
      expectRefusal(
        () => {
          assertCovers(entries, verbRequirements(bare), {}, bare.name);
        },
        'FORBIDDEN',
        'missing-verb',
      );
    }
    // the verb's own caveats must hold too
    const acme = capabilityEntries({ 'agentese:verb/math.*': { '*': [{ tenant: 'acme' }] } });
    expect(assertCovers(acme, verbRequirements(bare), { tenantId: 'acme' }, bare.name)).toBe(false);
    expectRefusal(
      () => {
        assertCovers(acme, verbRequirements(bare), { tenantId: 'globex' }, bare.name);
      },
      'FORBIDDEN',
      'caveat',
    );
  });
});
