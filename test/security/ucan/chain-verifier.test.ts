import { describe, expect, it } from 'vitest';
import { PlexusError } from '../../../src/core/errors.js';
import {
  encodeCapabilityCollection,
  encodeCapabilityContainer,
  proofStore,
} from '../../../src/security/ucan/chain-container.js';
import {
  ucanVerifier,
  type RevocationCheck,
  type UcanVerifierInit,
} from '../../../src/security/ucan/chain-verifier.js';
import { ucanCid, type Capabilities } from '../../../src/security/ucan/ucan-token.js';
import { expectPlexusError } from '../expect-error.js';
import { ALL, T0, alice, bob, expectRefusal, mallory, node, root, token } from './fixtures.js';

const SOUL: Capabilities = { 'agentese:*': { 'soul/read': [{}], 'effect/reads': [{}] } };

function revocations(
  entries: [string, string][] = [],
): RevocationCheck & { add(cid: string, by: string): void } {
  const map = new Map<string, Set<string>>();
  const add = (cid: string, by: string) => map.set(cid, (map.get(cid) ?? new Set()).add(by));
  for (const [cid, by] of entries) add(cid, by);
  return {
    add,
    get size() {
      return map.size;
    },
    isRevoked: (cid, issuers) => [...(map.get(cid) ?? [])].some((r) => issuers.has(r)),
  };
}

function verifier(extra: Partial<UcanVerifierInit> = {}, clock = { t: T0 }) {
  return ucanVerifier({ roots: [root.did], audience: node.did, now: () => clock.t, ...extra });
}

/** root → alice → bob → node, each link narrower (or equal). */
function chain3() {
  const r = token(root, alice, ALL, { ttl: '2h' });
  const a = token(alice, bob, SOUL, { proofs: [r.cid], ttl: '90m' });
  const b = token(bob, node, { 'agentese:*': { 'soul/read': [{}] } }, { proofs: [a.cid] });
  return { r, a, b, container: encodeCapabilityContainer(b, [a, r]) };
}

describe('ucanVerifier', () => {
  it('accepts a token issued by a trusted root to this node', () => {
    const t = token(root, node, SOUL);
    const chain = verifier().verify(t.jwt);
    expect(chain.cid).toBe(t.cid);
    expect(chain.invoker).toBe(root.did);
    expect(chain.roots).toEqual([root.did]);
    expect(chain.capabilities).toEqual([
      { resource: 'agentese:*', ability: 'soul/read', caveats: [{}] },
      { resource: 'agentese:*', ability: 'effect/reads', caveats: [{}] },
    ]);
  });

  it('accepts a chain of delegations, each only narrowing', () => {
    const { b, container } = chain3();
    const chain = verifier().verify(container);
    expect(chain.cid).toBe(b.cid);
    expect(chain.invoker).toBe(bob.did);
    expect(chain.links.map((l) => [l.depth, l.issuer])).toEqual([
      [0, bob.did],
      [1, alice.did],
      [2, root.did],
    ]);
    expect([...(chain.links[0]?.issuers ?? [])].sort()).toEqual([alice.did, bob.did, root.did].sort());
  });

  it('reads the JSON collection form of a container, proofs in any order', () => {
    const { r, a, b } = chain3();
    expect(verifier().verify(encodeCapabilityCollection(b, [r, a])).cid).toBe(b.cid);
    expect(verifier().verify(encodeCapabilityContainer(b, [r, a])).cid).toBe(b.cid);
  });

  it('resolves proofs the container does not carry from the proof store', () => {
    const { r, a, b } = chain3();
    const store = proofStore();
    store.add(r.jwt);
    store.add(a.jwt);
    expect(verifier({ store }).verify(b.jwt).cid).toBe(b.cid);
  });

  it('adds the tokens of a verified chain to the proof store', () => {
    const { b, container } = chain3();
    const store = proofStore();
    verifier({ store }).verify(container);
    expect(store.size).toBe(3);
    expect(verifier({ store }).verify(b.jwt).cid).toBe(b.cid);
  });

  it('serves a verified chain from the cache without checking signatures again', () => {
    const { container } = chain3();
    const v = verifier();
    v.verify(container);
    expect(v.stats).toEqual({ hits: 0, misses: 1, signatureChecks: 3 });
    v.verify(container);
    v.verify(container.split(',')[0] as string); // the leaf alone names the same chain
    expect(v.stats).toEqual({ hits: 2, misses: 1, signatureChecks: 3 });
  });

  it('re-checks expiry on a cached chain', () => {
    const clock = { t: T0 };
    const t = token(root, node, SOUL, { ttl: 600 });
    const v = verifier({}, clock);
    v.verify(t.jwt);
    clock.t = T0 + 600_000 + 61_000;
    expectRefusal(() => v.verify(t.jwt), 'UNAUTHORIZED', 'expired');
    expect(v.stats.hits).toBe(1);
  });

  it('re-checks revocations on a cached chain', () => {
    const { a, container } = chain3();
    const rev = revocations();
    const v = verifier({ revocations: rev });
    v.verify(container);
    rev.add(a.cid, root.did);
    const error = expectRefusal(() => v.verify(container), 'UNAUTHORIZED', 'revoked');
    expect(error.details).toMatchObject({ link: 1, cid: a.cid });
  });

  describe('refuses a chain', () => {
    it('with an expired leaf', () => {
      const t = token(root, node, SOUL, { expiresAt: T0 - 120_000 });
      const error = expectRefusal(() => verifier().verify(t.jwt), 'UNAUTHORIZED', 'expired');
      expect(error.details).toMatchObject({ link: 0, cid: t.cid });
    });

    it('with a link that outlives its proof (an expired proof cannot be extended)', () => {
      const r = token(root, alice, ALL, { expiresAt: T0 - 1000 });
      const a = token(alice, node, SOUL, { proofs: [r.cid], ttl: '1h' });
      const error = expectRefusal(
        () => verifier().verify(encodeCapabilityContainer(a, [r])),
        'UNAUTHORIZED',
        'time-widened',
      );
      expect(error.details).toMatchObject({ link: 0, cid: a.cid });
    });

    it('with a link that starts before its proof', () => {
      const r = token(root, alice, ALL, { notBefore: T0 - 1000 });
      const a = token(alice, node, SOUL, { proofs: [r.cid], notBefore: T0 - 60_000 });
      expectRefusal(
        () => verifier().verify(encodeCapabilityContainer(a, [r])),
        'UNAUTHORIZED',
        'time-widened',
      );
      const never = token(alice, node, SOUL, { proofs: [r.cid], expiresAt: null, notBefore: T0 });
      expectRefusal(
        () => verifier().verify(encodeCapabilityContainer(never, [r])),
        'UNAUTHORIZED',
        'time-widened',
      );
    });

    it('that is not valid yet', () => {
      const t = token(root, node, SOUL, { notBefore: T0 + 3600_000, ttl: '2h' });
      expectRefusal(() => verifier().verify(t.jwt), 'UNAUTHORIZED', 'not-yet-valid');
    });

    it('with a widened scope', () => {
      const r = token(root, alice, { 'agentese:*': { 'soul/read': [{}] } });
      const a = token(alice, node, { 'agentese:*': { 'soul/write': [{}] } }, { proofs: [r.cid] });
      const error = expectRefusal(
        () => verifier().verify(encodeCapabilityContainer(a, [r])),
        'UNAUTHORIZED',
        'widened',
      );
      expect(error.details).toMatchObject({
        link: 0,
        cid: a.cid,
        ability: 'soul/write',
        resource: 'agentese:*',
      });
      expect(error.message).toContain('soul/write on agentese:*');
    });

    it('with a widened ability namespace (soul/read → soul/*)', () => {
      const r = token(root, alice, { 'agentese:*': { 'soul/read': [{}] } });
      const a = token(alice, node, { 'agentese:*': { 'soul/*': [{}] } }, { proofs: [r.cid] });
      expectRefusal(() => verifier().verify(encodeCapabilityContainer(a, [r])), 'UNAUTHORIZED', 'widened');
    });

    it('with a widened resource', () => {
      const r = token(root, alice, { 'agentese:session/42': { 'effect/writes': [{}] } });
      const a = token(alice, node, { 'agentese:session/*': { 'effect/writes': [{}] } }, { proofs: [r.cid] });
      expectRefusal(() => verifier().verify(encodeCapabilityContainer(a, [r])), 'UNAUTHORIZED', 'widened');
    });

    it('with a widened caveat or budget', () => {
      const r = token(root, alice, {
        'agentese:*': { 'soul/read': [{ tenant: 'acme', budget: { tokens: 100 } }] },
      });
      const dropped = token(
        alice,
        node,
        { 'agentese:*': { 'soul/read': [{ budget: { tokens: 100 } }] } },
        { proofs: [r.cid] },
      );
      const raised = token(
        alice,
        node,
        { 'agentese:*': { 'soul/read': [{ tenant: 'acme', budget: { tokens: 101 } }] } },
        { proofs: [r.cid] },
      );
      const open = token(alice, node, { 'agentese:*': { 'soul/read': [{}] } }, { proofs: [r.cid] });
      for (const t of [dropped, raised, open]) {
        expectRefusal(() => verifier().verify(encodeCapabilityContainer(t, [r])), 'UNAUTHORIZED', 'widened');
      }
      const lowered = token(
        alice,
        node,
        { 'agentese:*': { 'soul/read': [{ tenant: 'acme', budget: { tokens: 40 }, session: 's1' }] } },
        { proofs: [r.cid] },
      );
      expect(verifier().verify(encodeCapabilityContainer(lowered, [r])).cid).toBe(lowered.cid);
    });

    it('addressed to another node', () => {
      const t = token(root, mallory, SOUL);
      const error = expectRefusal(() => verifier().verify(t.jwt), 'UNAUTHORIZED', 'audience');
      expect(error.details).toMatchObject({ link: 0 });
    });

    it('whose proof was delegated to someone else (principal alignment)', () => {
      const r = token(root, bob, ALL);
      const a = token(alice, node, SOUL, { proofs: [r.cid] });
      const error = expectRefusal(
        () => verifier().verify(encodeCapabilityContainer(a, [r])),
        'UNAUTHORIZED',
        'principal-alignment',
      );
      expect(error.details).toMatchObject({ link: 1, cid: r.cid });
    });

    it('rooted in an untrusted issuer', () => {
      const m = token(mallory, alice, ALL);
      const a = token(alice, node, SOUL, { proofs: [m.cid] });
      const error = expectRefusal(
        () => verifier().verify(encodeCapabilityContainer(a, [m])),
        'UNAUTHORIZED',
        'untrusted-root',
      );
      expect(error.details).toMatchObject({ link: 1, cid: m.cid, issuer: mallory.did });
      expectRefusal(() => verifier().verify(token(alice, node, SOUL).jwt), 'UNAUTHORIZED', 'untrusted-root');
    });

    it('with a bad signature on the leaf or on a proof', () => {
      const { r, a, b } = chain3();
      const tamper = (jwt: string) => {
        const [h, p, s] = jwt.split('.') as [string, string, string];
        const payload = JSON.parse(Buffer.from(p, 'base64url').toString());
        payload.nnc = 'changed';
        return `${h}.${Buffer.from(JSON.stringify(payload)).toString('base64url')}.${s}`;
      };
      const leafError = expectRefusal(
        () => verifier().verify(encodeCapabilityContainer(tamper(b.jwt), [a, r])),
        'UNAUTHORIZED',
        'signature',
      );
      expect(leafError.details).toMatchObject({ link: 0 });
      // A tampered proof has another CID, so the link resolves nothing: the chain is broken there.
      const badRoot = tamper(r.jwt);
      const a2 = token(alice, bob, SOUL, { proofs: [ucanCid(badRoot)] });
      const b2 = token(bob, node, SOUL, { proofs: [a2.cid] });
      const proofError = expectRefusal(
        () => verifier().verify(encodeCapabilityContainer(b2, [a2, badRoot])),
        'UNAUTHORIZED',
        'signature',
      );
      expect(proofError.details).toMatchObject({ link: 2 });
    });

    it('with a revoked link, when the revoker is an issuer of its chain', () => {
      const { a, b, container } = chain3();
      const byRoot = expectRefusal(
        () => verifier({ revocations: revocations([[a.cid, root.did]]) }).verify(container),
        'UNAUTHORIZED',
        'revoked',
      );
      expect(byRoot.details).toMatchObject({ link: 1, cid: a.cid });
      expectRefusal(
        () => verifier({ revocations: revocations([[b.cid, alice.did]]) }).verify(container),
        'UNAUTHORIZED',
        'revoked',
      );
    });

    it('but ignores a revocation by someone outside the chain', () => {
      const { a, b, container } = chain3();
      const rev = revocations([
        [a.cid, mallory.did],
        [a.cid, bob.did], // bob is below alice's link: he cannot revoke it
      ]);
      expect(verifier({ revocations: rev }).verify(container).cid).toBe(b.cid);
    });

    it('whose proof cannot be found', () => {
      const { a, b } = chain3();
      const error = expectRefusal(
        () => verifier().verify(encodeCapabilityContainer(b, [a])),
        'UNAUTHORIZED',
        'missing-proof',
      );
      expect(error.details).toMatchObject({ link: 2 });
    });

    it('deeper than the limit', () => {
      const { container } = chain3();
      expectRefusal(() => verifier({ maxDepth: 2 }).verify(container), 'UNAUTHORIZED', 'too-deep');
    });

    it('that is empty or garbage', () => {
      for (const bad of ['', '  ', 'a,,b', '{"x":1}', '{nope', 'x.y.z']) {
        const error = expectPlexusError(() => verifier().verify(bad), 'UNAUTHORIZED');
        expect(error.details?.['reason']).toBe('malformed');
      }
    });
  });

  it('needs roots and an audience', () => {
    expectPlexusError(() => ucanVerifier({ roots: [], audience: node.did }), 'INVALID_PARAMS');
    expectPlexusError(() => ucanVerifier({ roots: [root.did], audience: [] }), 'INVALID_PARAMS');
    expectPlexusError(
      () => ucanVerifier({ roots: [root.did], audience: node.did, clockToleranceSec: -1 }),
      'INVALID_PARAMS',
    );
  });

  it('does not cache refusals', () => {
    const t = token(root, mallory, SOUL);
    const v = verifier();
    for (let i = 0; i < 2; i++) expect(() => v.verify(t.jwt)).toThrow(PlexusError);
    expect(v.stats.hits).toBe(0);
  });
});
