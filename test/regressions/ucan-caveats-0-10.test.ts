// Issue 11, item 3: caveats follow UCAN 0.10 §3.2.6.3. An empty caveat array grants nothing and
// is refused (at the root and in a delegation); a delegation that narrows caveats (adds
// constraints) is accepted; one that removes or loosens them is refused. The spec's own table
// is checked row by row; the conformance fixtures run in test/security/ucan/conformance-0.10.test.ts.
import { describe, expect, it } from 'vitest';
import { PlexusError } from '../../src/core/errors.js';
import { sign } from '../../src/security/ed25519.js';
import { ucanVerifier } from '../../src/security/ucan/chain-verifier.js';
import { delegateUcan } from '../../src/security/ucan/delegate.js';
import type { Caveat } from '../../src/security/ucan/ucan-token.js';
import { T0, alice, node, root, token } from '../security/ucan/fixtures.js';

const R = 'agentese:verb/notes.entry.add';
const A = 'notes/write';

const verifier = () => ucanVerifier({ roots: [root.did], audience: node.did, now: () => T0 });

/** root grants `proof` caveats to alice; alice delegates `delegated` caveats to the node. */
function chain(proof: Caveat[], delegated: Caveat[]): string {
  const r = token(root, alice, { [R]: { [A]: proof } }, { ttl: '2h' });
  const leaf = token(alice, node, { [R]: { [A]: delegated } }, { proofs: [r.cid] });
  return `${leaf.jwt},${r.jwt}`;
}

function verdict(container: string): string {
  try {
    verifier().verifyUncached(container);
    return 'accepted';
  } catch (error) {
    if (!(error instanceof PlexusError)) throw error;
    const reason = error.details?.['reason'];
    return `${error.code}:${typeof reason === 'string' ? reason : 'none'}`;
  }
}

const outcome = (proof: Caveat[], delegated: Caveat[]): string => verdict(chain(proof, delegated));

/** A token from `from` to the node whose `cap` is replaced by `cap` and signed again (signUcan refuses to make it). */
function forged(cap: unknown, from = root, proofs: string[] = []): string {
  const signed = token(from, node, { [R]: { [A]: [{}] } }, { proofs });
  const [h, p] = signed.jwt.split('.') as [string, string];
  const payload = JSON.parse(Buffer.from(p, 'base64url').toString('utf8')) as Record<string, unknown>;
  payload['cap'] = cap;
  const body = Buffer.from(JSON.stringify(payload)).toString('base64url');
  return `${h}.${body}.${Buffer.from(sign(Buffer.from(`${h}.${body}`), from.key)).toString('base64url')}`;
}

const x: Caveat = { tenant: 'acme' };
const y: Caveat = { session: 's1' };
const yz: Caveat = { session: 's1', budget: { tokens: 10 } };
const z: Caveat = { budget: { tokens: 10 } };

describe('UCAN 0.10 caveats (issue 11 item 3)', () => {
  it('refuses an empty caveat array in a root token, in a delegation and when signing', () => {
    expect(verdict(forged({ [R]: { [A]: [{}] } }))).toBe('accepted');
    expect(verdict(forged({ [R]: { [A]: [] } }))).toBe('UNAUTHORIZED:malformed');
    expect(verdict(forged({ [R]: { [A]: [{}], 'crud/read': [] } }))).toBe('UNAUTHORIZED:malformed');
    expect(() => token(root, node, { [R]: { [A]: [] } })).toThrow(/empty array, which grants nothing/);
    const granted = token(root, alice, { [R]: { [A]: [{}] } }, { ttl: '2h' });
    const delegated = forged({ [R]: { [A]: [] } }, alice, [granted.cid]);
    expect(verdict(`${delegated},${granted.jwt}`)).toBe('UNAUTHORIZED:malformed');
    expect(verdict(`${forged({ [R]: { [A]: [{}] } }, alice, [granted.cid])},${granted.jwt}`)).toBe(
      'accepted',
    );
    expect(() =>
      delegateUcan({
        key: alice.key,
        parent: token(root, alice, { [R]: { [A]: [{}] } }).jwt,
        audience: node.did,
        capabilities: { [R]: { [A]: [] } },
        now: () => T0,
      }),
    ).toThrow(/grants nothing/);
  });

  // UCAN 0.10 §3.2.6.3, the table "Proof Caveats / Delegated Caveats / Is Valid?".
  it.each([
    ['equal, no caveats', [{}], [{}], 'accepted'],
    ['equal', [x], [x], 'accepted'],
    ['escalation to any', [x], [{}], 'UNAUTHORIZED:widened'],
    ['attenuates {} to x', [{}], [x], 'accepted'],
    ['escalation by a different caveat', [x], [y], 'UNAUTHORIZED:widened'],
    ['removes a capability', [x, y], [x], 'accepted'],
    ['attenuates an existing caveat', [x, y], [x, yz], 'accepted'],
    ['escalation by a new capability', [x, y], [x, y, z], 'UNAUTHORIZED:widened'],
  ] as const)('%s: %j → %j is %s', (_name, proof, delegated, expected) => {
    expect(outcome([...proof], [...delegated])).toBe(expected);
  });

  it('accepts narrowing inside a field and refuses loosening it', () => {
    // a budget may only go down; an allow-list may only shrink; a field may not go away
    expect(outcome([{ budget: { tokens: 10 } }], [{ budget: { tokens: 5 } }])).toBe('accepted');
    expect(outcome([{ budget: { tokens: 10 } }], [{ budget: { tokens: 11 } }])).toBe('UNAUTHORIZED:widened');
    expect(outcome([{ budget: { tokens: 10 } }], [{ budget: {} }])).toBe('UNAUTHORIZED:widened');
    expect(outcome([{ only: ['a', 'b'] }], [{ only: ['a'] }])).toBe('accepted');
    expect(outcome([{ only: ['a'] }], [{ only: ['a', 'b'] }])).toBe('UNAUTHORIZED:widened');
    expect(outcome([{ only: ['a'] }], [{ only: 'a' }])).toBe('UNAUTHORIZED:widened');
    expect(outcome([{ tenant: 'acme', session: 's1' }], [{ tenant: 'acme' }])).toBe('UNAUTHORIZED:widened');
    expect(outcome([{ tenant: 'acme' }], [{ tenant: 'globex' }])).toBe('UNAUTHORIZED:widened');
  });
});
