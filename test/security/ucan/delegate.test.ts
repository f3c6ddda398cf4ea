import { describe, expect, it } from 'vitest';
import { capabilitiesOf, delegateUcan } from '../../../src/security/ucan/delegate.js';
import { parseCapabilityContainer } from '../../../src/security/ucan/chain-container.js';
import { ucanVerifier } from '../../../src/security/ucan/chain-verifier.js';
import { decodeUcan } from '../../../src/security/ucan/ucan-token.js';
import { expectPlexusError } from '../expect-error.js';
import { ALL, T0, alice, bob, node, root, token } from './fixtures.js';

const now = () => T0;

describe('capabilitiesOf', () => {
  it('grants scopes on resources and effects on their own resources', () => {
    expect(
      capabilitiesOf({
        scopes: ['soul:read', 'atelier:write'],
        effects: ['reads:memory_crystals', 'charges'],
      }),
    ).toEqual({
      'agentese:*': { 'soul/read': [{}], 'atelier/write': [{}], 'effect/charges': [{}] },
      'agentese:memory_crystals': { 'effect/reads': [{}] },
    });
    expect(capabilitiesOf({ all: true, resources: ['session/*'], caveats: [{ tenant: 'acme' }] })).toEqual({
      'agentese:session/*': { '*': [{ tenant: 'acme' }] },
    });
  });

  it('refuses unknown effects and empty grants', () => {
    expectPlexusError(() => capabilitiesOf({ effects: ['explodes:x'] }), 'INVALID_PARAMS');
    expectPlexusError(() => capabilitiesOf({}), 'INVALID_PARAMS');
    expectPlexusError(() => capabilitiesOf({ scopes: ['nocolon'] }), 'INVALID_PARAMS');
  });
});

describe('delegateUcan', () => {
  const parent = token(root, alice, ALL, { ttl: '2h' });

  it('delegates the parent capabilities by default, rests on its CID and ships the chain', () => {
    const { ucan, container } = delegateUcan({ key: alice.key, parent: parent.jwt, audience: bob.did, now });
    expect(ucan.payload.iss).toBe(alice.did);
    expect(ucan.payload.prf).toEqual([parent.cid]);
    expect(ucan.payload.cap).toEqual(ALL);
    expect(ucan.payload.exp).toBe(Math.floor(T0 / 1000) + 3600);
    expect(parseCapabilityContainer(container)).toEqual({ leaf: ucan.jwt, proofs: [parent.jwt] });
  });

  it('caps the lifetime at the parent expiry and narrows twice into a chain the verifier accepts', () => {
    const first = delegateUcan({
      key: alice.key,
      parent: parent.jwt,
      audience: bob.did,
      capabilities: capabilitiesOf({ scopes: ['soul:*'] }),
      ttl: '7d',
      now,
    });
    expect(first.ucan.payload.exp).toBe(parent.payload.exp);
    const second = delegateUcan({
      key: bob.key,
      parent: first.container,
      audience: node.did,
      capabilities: capabilitiesOf({ scopes: ['soul:read'], resources: ['verb/soul.*'] }),
      now,
    });
    expect(parseCapabilityContainer(second.container).proofs).toHaveLength(2);
    const chain = ucanVerifier({ roots: [root.did], audience: node.did, now }).verify(second.container);
    expect(chain.links).toHaveLength(3);
  });

  it('refuses to widen, to outlive the parent, or to be used by a key that is not its audience', () => {
    const narrow = token(root, alice, capabilitiesOf({ scopes: ['soul:read'] }));
    expectPlexusError(
      () =>
        delegateUcan({
          key: alice.key,
          parent: narrow.jwt,
          audience: bob.did,
          capabilities: capabilitiesOf({ scopes: ['soul:write'] }),
          now,
        }),
      'INVALID_PARAMS',
    );
    const bounded = token(root, alice, capabilitiesOf({ scopes: ['soul:read'], caveats: [{ tenant: 'a' }] }));
    expectPlexusError(
      () =>
        delegateUcan({
          key: alice.key,
          parent: bounded.jwt,
          audience: bob.did,
          capabilities: capabilitiesOf({ scopes: ['soul:read'] }),
          now,
        }),
      'INVALID_PARAMS',
    );
    expectPlexusError(
      () => delegateUcan({ key: alice.key, parent: parent.jwt, audience: bob.did, expiresAt: null, now }),
      'INVALID_PARAMS',
    );
    expectPlexusError(
      () =>
        delegateUcan({
          key: alice.key,
          parent: parent.jwt,
          audience: bob.did,
          expiresAt: T0 + 3 * 3600_000,
          now,
        }),
      'INVALID_PARAMS',
    );
    expectPlexusError(
      () => delegateUcan({ key: bob.key, parent: parent.jwt, audience: node.did, now }),
      'INVALID_PARAMS',
    );
  });

  it('keeps the parent not-before unless told a later one', () => {
    const later = token(root, alice, ALL, { notBefore: T0 + 10_000, ttl: '2h' });
    const d = delegateUcan({ key: alice.key, parent: later.jwt, audience: bob.did, now });
    expect(decodeUcan(d.ucan.jwt).payload.nbf).toBe(later.payload.nbf);
    expectPlexusError(
      () => delegateUcan({ key: alice.key, parent: later.jwt, audience: bob.did, notBefore: T0, now }),
      'INVALID_PARAMS',
    );
  });
});
