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
    expect(verbRequirements(start)).toEqual([
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
    expect(verbRequirements(spec({}))).toEqual([]);
  });

  it('merges the requirements of several candidates without duplicates', () => {
    const other = spec({ capabilities: ['atelier:write', 'soul:read'] });
    const merged = unionRequirements([verbRequirements(start), verbRequirements(other)]);
    expect(merged.map((r) => r.scope)).toEqual([
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
      'missing-scope',
    );
  });
});
