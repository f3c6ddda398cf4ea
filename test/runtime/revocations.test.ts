import { afterEach, describe, expect, it } from 'vitest';
import {
  REVOCATIONS_PROJECTION_NAME,
  UCAN_REVOKED_EVENT,
  createRevocations,
  revocationsProjection,
  type Revocations,
} from '../../src/runtime/pipeline/revocations.js';
import { proofStore } from '../../src/security/ucan/chain-container.js';
import { createRevocation } from '../../src/security/ucan/revocation.js';
import { projectionText } from '../../src/store/projection.js';
import { memoryEventLog, type EventLog } from '../../src/store/index.js';
import { ALL, alice, bob, mallory, root, token } from '../security/ucan/fixtures.js';

describe('revocations', () => {
  let log: EventLog;
  const open: Revocations[] = [];

  async function revocationsOver(l: EventLog, withStore = true): Promise<Revocations> {
    const store = proofStore();
    const r = token(root, alice, ALL);
    const a = token(alice, bob, ALL, { proofs: [r.cid] });
    if (withStore) {
      store.add(r.jwt);
      store.add(a.jwt);
    }
    const revocations = createRevocations({ log: l, resolver: store });
    await revocations.start();
    open.push(revocations);
    return Object.assign(revocations, { r, a });
  }

  afterEach(async () => {
    for (const r of open.splice(0)) await r.stop();
    await log.stop();
  });

  it('records a revocation as a ucan.revoked event and answers for the issuers of the chain', async () => {
    log = memoryEventLog();
    await log.start();
    const revocations = (await revocationsOver(log)) as Revocations & {
      r: { cid: string };
      a: { cid: string };
    };
    const { a } = revocations;
    expect(revocations.size).toBe(0);
    await revocations.revoke(createRevocation(alice.key, a.cid));
    expect(revocations.revokers(a.cid)).toEqual([alice.did]);
    expect(revocations.isRevoked(a.cid, new Set([root.did, alice.did]))).toBe(true);
    expect(revocations.isRevoked(a.cid, new Set([bob.did]))).toBe(false);
    const [event] = await log.read({ type: UCAN_REVOKED_EVENT });
    expect(event).toMatchObject({ causation: a.cid, data: { cid: a.cid, issuer: alice.did } });
  });

  it('refuses a forged revocation and one by an issuer outside a known chain', async () => {
    log = memoryEventLog();
    await log.start();
    const revocations = (await revocationsOver(log)) as Revocations & { a: { cid: string } };
    const forged = { ...createRevocation(alice.key, revocations.a.cid), iss: root.did };
    await expect(revocations.revoke(forged)).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
    await expect(revocations.revoke(createRevocation(bob.key, revocations.a.cid))).rejects.toMatchObject({
      code: 'FORBIDDEN',
    });
    await expect(revocations.revoke(createRevocation(mallory.key, revocations.a.cid))).rejects.toMatchObject({
      code: 'FORBIDDEN',
    });
    expect(await log.read({ type: UCAN_REVOKED_EVENT })).toEqual([]);
  });

  it('records a revocation of an unknown token (the verifier decides whether it counts)', async () => {
    log = memoryEventLog();
    await log.start();
    const revocations = await revocationsOver(log, false);
    const unknown = token(root, alice, ALL).cid;
    await revocations.revoke(createRevocation(mallory.key, unknown));
    expect(revocations.isRevoked(unknown, new Set([root.did, alice.did]))).toBe(false);
    expect(revocations.isRevoked(unknown, new Set([mallory.did]))).toBe(true);
  });

  it('is a projection of the log: rebuilt the same after a restart', async () => {
    log = memoryEventLog();
    await log.start();
    const first = (await revocationsOver(log)) as Revocations & { r: { cid: string }; a: { cid: string } };
    await first.revoke(createRevocation(root.key, first.r.cid));
    await first.revoke(createRevocation(root.key, first.a.cid));
    await first.revoke(createRevocation(alice.key, first.a.cid));
    const second = await revocationsOver(log);
    expect(second.revokers(first.a.cid)).toEqual([alice.did, root.did].sort());
    expect(projectionText(revocationsProjection, second.view.state())).toBe(
      projectionText(revocationsProjection, first.view.state()),
    );
    expect(second.view.name).toBe(REVOCATIONS_PROJECTION_NAME);
  });
});
