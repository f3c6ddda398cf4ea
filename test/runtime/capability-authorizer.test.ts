import { afterEach, describe, expect, it } from 'vitest';
import type { Envelope } from '../../src/core/envelope.js';
import type { ErrorData } from '../../src/core/errors.js';
import { canonicalizeJcs } from '../../src/core/canonical/jcs.js';
import { sha256Hex } from '../../src/core/hash.js';
import type { Principal } from '../../src/runtime/context.js';
import {
  AUDIT_CAPABILITY_EVENT,
  capabilityAuthorizer,
  type CapabilityAuthorizerInit,
} from '../../src/runtime/pipeline/capability-authorizer.js';
import { auditPreEffect } from '../../src/runtime/pipeline/effects.js';
import {
  UCAN_REVOKED_EVENT,
  createRevocations,
  type Revocations,
} from '../../src/runtime/pipeline/revocations.js';
import { memoryEventLog } from '../../src/store/index.js';
import { CAPABILITY_CHECK_COUNT } from '../../src/observability/span-names.js';
import { memoryObserver } from '../../src/runtime/observer.js';
import { encodeCapabilityContainer, proofStore } from '../../src/security/ucan/chain-container.js';
import { ucanVerifier, type UcanVerifier } from '../../src/security/ucan/chain-verifier.js';
import { capabilitiesOf } from '../../src/security/ucan/delegate.js';
import { createRevocation } from '../../src/security/ucan/revocation.js';
import { signUcan, type Capabilities, type Ucan } from '../../src/security/ucan/ucan-token.js';
import { alice, mallory, node, root, type Party } from '../security/ucan/fixtures.js';
import { agent, type Harness, request, spec, startRuntime } from './helpers.js';

const START = 'atelier.session.start';
const RECALL = 'soul.memory.recall';

const atelier = agent(
  'atelier',
  { [START]: () => ({ session: 's1' }), [RECALL]: () => ({ crystal: null }) },
  {
    verbs: [
      spec(START, {
        category: 'mutation',
        deterministic: false,
        capabilities: ['atelier:write'],
        effects: { writes: ['session_registry'] },
      }),
      spec(RECALL, { capabilities: ['soul:read'], effects: { reads: ['memory_crystals'] } }),
    ],
  },
);

const EVERYTHING = capabilitiesOf({
  scopes: ['atelier:write', 'soul:read'],
  effects: ['writes:session_registry', 'reads:memory_crystals'],
});

/**
 * A token that expires an hour from now; one that has proofs lives ten minutes, so it never
 * outlives its proof when the two are signed either side of a second boundary.
 */
function issue(from: Party, to: Party, cap: Capabilities, proofs: Ucan[] = []): Ucan {
  return signUcan({
    key: from.key,
    audience: to.did,
    capabilities: cap,
    proofs: proofs.map((p) => p.cid),
    ttl: proofs.length === 0 ? 3600 : 600,
  });
}

/** root → alice → node: alice invokes with what root gave her, narrowed to `cap`. */
function chain(cap: Capabilities = EVERYTHING): { leaf: Ucan; parent: Ucan; container: string } {
  const parent = issue(root, alice, EVERYTHING);
  const leaf = issue(alice, node, cap, [parent]);
  return { leaf, parent, container: encodeCapabilityContainer(leaf, [parent]) };
}

function errorOf(envelope: Envelope): ErrorData {
  expect(envelope.kind, JSON.stringify(envelope.data)).toBe('error');
  return envelope.data as unknown as ErrorData;
}

describe('capabilityAuthorizer in a runtime', () => {
  let h: Harness;
  let verifier: UcanVerifier;
  let revocations: Revocations;

  async function start(extra: Partial<CapabilityAuthorizerInit> = {}): Promise<void> {
    const log = memoryEventLog();
    const store = proofStore();
    revocations = createRevocations({ log, resolver: store });
    verifier = ucanVerifier({ roots: [root.did], audience: node.did, store, revocations });
    const authorizer = capabilityAuthorizer({ verifier, log, ...extra });
    h = await startRuntime(
      {
        agents: [atelier],
        authorizers: [authorizer],
        ...(extra.auditMode === 'batch' ? { preEffects: [auditPreEffect, authorizer.auditEffect] } : {}),
      },
      log,
    );
    await revocations.start();
  }

  afterEach(async () => {
    await revocations.stop();
    await h.close();
  });

  const call = (
    verb: string,
    capability: string | undefined,
    extra: Partial<Envelope> = {},
    principal?: Principal,
  ) =>
    h.runtime.invoke(
      request(verb, { x: 1 }, `capability:${verb}`, {
        ...(capability === undefined ? {} : { capability }),
        ...extra,
      }),
      { face: 'test', ...(principal === undefined ? {} : { principal }) },
    );

  const audits = async () =>
    (await h.log.read({ type: AUDIT_CAPABILITY_EVENT })).map((e) => e.data as Record<string, unknown>);

  it('lets through a request whose chain covers the scopes and effects, and caches the chain', async () => {
    await start();
    const { container } = chain();
    expect((await call(RECALL, container)).envelope.data).toEqual({ crystal: null });
    expect((await call(RECALL, container)).envelope.kind).toBe('response');
    expect(verifier.stats).toMatchObject({ misses: 1, hits: 1, signatureChecks: 2 });
    expect(await audits()).toEqual([]); // queries are not audited
  });

  it('audits an allowed mutation with the token, principal, effects and input hash', async () => {
    await start();
    const { leaf, container } = chain();
    const { envelope } = await call(START, container, { tenantId: 'acme', userId: 'u1' });
    expect(envelope.data).toEqual({ session: 's1' });
    const [entry, ...rest] = await audits();
    expect(rest).toEqual([]);
    expect(entry).toMatchObject({
      decision: 'allowed',
      verb: START,
      token: leaf.cid,
      invoker: alice.did,
      principal: alice.did,
      tenant: 'acme',
      user: 'u1',
      face: 'test',
      effects: { writes: ['session_registry'] },
      inputHash: sha256Hex(canonicalizeJcs({ x: 1 })),
    });
  });

  it('refuses a request without a token as UNAUTHORIZED naming the scope, and audits the denial', async () => {
    await start();
    const error = errorOf((await call(START, undefined)).envelope);
    expect(error.code).toBe('UNAUTHORIZED');
    expect(error.details).toMatchObject({ reason: 'missing', scope: 'atelier:write' });
    const [entry] = await audits();
    expect(entry).toMatchObject({ decision: 'denied', code: 'UNAUTHORIZED', verb: START });
    expect(entry?.['reason']).toContain('atelier:write');
  });

  it('refuses a chain without the scope as FORBIDDEN naming the missing scope', async () => {
    await start();
    const { container } = chain(
      capabilitiesOf({ scopes: ['soul:read'], effects: ['writes:session_registry'] }),
    );
    const error = errorOf((await call(START, container)).envelope);
    expect(error.code).toBe('FORBIDDEN');
    expect(error.details).toMatchObject({ reason: 'missing-scope', scope: 'atelier:write', verb: START });
    expect((await audits())[0]).toMatchObject({ decision: 'denied', code: 'FORBIDDEN' });
  });

  it('refuses a chain without a declared effect as FORBIDDEN naming the effect', async () => {
    await start();
    const { container } = chain(capabilitiesOf({ scopes: ['soul:read'] }));
    const error = errorOf((await call(RECALL, container)).envelope);
    expect(error).toMatchObject({
      code: 'FORBIDDEN',
      details: { reason: 'missing-effect', scope: 'reads:memory_crystals' },
    });
  });

  it('refuses a broken link as UNAUTHORIZED naming the link', async () => {
    await start();
    const parent = issue(root, alice, capabilitiesOf({ scopes: ['soul:read'] }));
    const widened = issue(alice, node, EVERYTHING, [parent]);
    const error = errorOf((await call(RECALL, encodeCapabilityContainer(widened, [parent]))).envelope);
    expect(error).toMatchObject({
      code: 'UNAUTHORIZED',
      details: { reason: 'widened', link: 0, cid: widened.cid },
    });
    const foreign = issue(mallory, alice, EVERYTHING);
    const leaf = issue(alice, node, EVERYTHING, [foreign]);
    const rootError = errorOf((await call(RECALL, encodeCapabilityContainer(leaf, [foreign]))).envelope);
    expect(rootError.details).toMatchObject({ reason: 'untrusted-root', link: 1, cid: foreign.cid });
  });

  it('refuses a token addressed to another node', async () => {
    await start();
    const parent = issue(root, alice, EVERYTHING);
    const stray = issue(alice, mallory, EVERYTHING, [parent]);
    const error = errorOf((await call(RECALL, encodeCapabilityContainer(stray, [parent]))).envelope);
    expect(error.details).toMatchObject({ reason: 'audience', link: 0 });
  });

  it('refuses a chain once an issuer of it revokes a link (an event in the log)', async () => {
    await start();
    const { parent, container } = chain();
    expect((await call(RECALL, container)).envelope.kind).toBe('response');
    await expect(revocations.revoke(createRevocation(mallory.key, parent.cid))).rejects.toMatchObject({
      code: 'FORBIDDEN',
    });
    await revocations.revoke(createRevocation(root.key, parent.cid));
    await revocations.revoke(createRevocation(root.key, parent.cid)); // once is enough
    const events = await h.log.read({ type: UCAN_REVOKED_EVENT });
    expect(events.map((e) => e.data)).toEqual([
      { cid: parent.cid, issuer: root.did, challenge: createRevocation(root.key, parent.cid).challenge },
    ]);
    const error = errorOf((await call(RECALL, container)).envelope);
    expect(error.details).toMatchObject({ reason: 'revoked', link: 1, cid: parent.cid });
  });

  it('refuses a token used by another principal than the one it was delegated to', async () => {
    await start();
    const { container } = chain();
    const error = errorOf(
      (await call(RECALL, container, {}, { id: mallory.did, kind: 'signature' })).envelope,
    );
    expect(error.details).toMatchObject({ reason: 'invoker-mismatch' });
    expect((await call(RECALL, container, {}, { id: alice.did, kind: 'signature' })).envelope.kind).toBe(
      'response',
    );
    expect((await call(RECALL, container, {}, { id: 'alice', kind: 'bearer' })).envelope.kind).toBe(
      'response',
    );
  });

  it('holds tenant caveats against the envelope', async () => {
    await start();
    const { container } = chain(
      capabilitiesOf({
        scopes: ['soul:read'],
        effects: ['reads:memory_crystals'],
        caveats: [{ tenant: 'acme' }],
      }),
    );
    expect((await call(RECALL, container, { tenantId: 'acme' })).envelope.kind).toBe('response');
    const error = errorOf((await call(RECALL, container, { tenantId: 'beta' })).envelope);
    expect(error).toMatchObject({ code: 'FORBIDDEN', details: { reason: 'caveat' } });
  });

  it('reads the chain from the proof of an AGENTESE capability object', async () => {
    await start();
    const { container } = chain();
    const { envelope } = await call(RECALL, undefined, {
      extensions: { _x_agentese_capability: { issuer: alice.did, proof: container } },
    });
    expect(envelope.kind).toBe('response');
  });

  it('audits a mutation let through with enforcement off as forced, with the rationale', async () => {
    await start({ enforce: false });
    const { envelope } = await call(START, undefined);
    expect(envelope.kind).toBe('response');
    const [entry] = await audits();
    expect(entry).toMatchObject({ decision: 'forced', code: 'UNAUTHORIZED' });
    expect(entry?.['reason']).toContain('enforcement is off');
  });

  it('audits an exempted mutation as forced with the exemption rationale', async () => {
    await start({
      exempt: (r) => (r.context.face === 'internal' ? 'in-process call of the node' : undefined),
    });
    const internal = await h.runtime.invoke(request(START, {}, `capability:${START}`), { face: 'internal' });
    expect(internal.envelope.kind).toBe('response');
    expect(errorOf((await call(START, undefined)).envelope).code).toBe('UNAUTHORIZED');
    expect((await audits()).map((a) => [a['decision'], a['reason']])).toEqual([
      ['forced', 'in-process call of the node'],
      ['denied', expect.stringContaining('atelier:write') as unknown],
    ]);
  });

  it('allows a verb without declared needs only with a valid token unless told otherwise', async () => {
    await start();
    const plain = agent('plain', { 'demo.ping': () => 'pong' });
    await h.runtime.agents.add(plain);
    expect(errorOf((await call('demo.ping', undefined)).envelope).details).toMatchObject({
      reason: 'missing',
    });
    const { container } = chain(capabilitiesOf({ scopes: ['soul:read'] }));
    expect((await call('demo.ping', container)).envelope.data).toBe('pong');
  });

  it('lets a request without a token through when requireToken is off and the verb needs nothing', async () => {
    await start({ requireToken: false });
    await h.runtime.agents.add(agent('plain', { 'demo.ping': () => 'pong' }));
    expect((await call('demo.ping', undefined)).envelope.data).toBe('pong');
    expect(errorOf((await call(RECALL, undefined)).envelope).code).toBe('UNAUTHORIZED');
  });

  it('counts each check by scope and result on its observer', async () => {
    const observer = memoryObserver();
    const counted: { name: string; attributes: unknown }[] = [];
    await start({
      observer: {
        ...observer,
        count: (name, attributes) => {
          counted.push({ name, attributes });
        },
      },
    });
    const { container } = chain();
    expect((await call(RECALL, container)).envelope.kind).toBe('response');
    expect(errorOf((await call(RECALL, undefined)).envelope).code).toBe('UNAUTHORIZED');
    const narrow = chain(capabilitiesOf({ scopes: ['soul:read'], effects: [] })).container;
    errorOf((await call(RECALL, narrow)).envelope);
    expect(counted).toEqual([
      { name: CAPABILITY_CHECK_COUNT, attributes: { scope: 'soul:read', result: 'allowed' } },
      { name: CAPABILITY_CHECK_COUNT, attributes: { scope: 'soul:read', result: 'denied' } },
      { name: CAPABILITY_CHECK_COUNT, attributes: { scope: 'reads:memory_crystals', result: 'denied' } },
    ]);
  });

  it('in batch mode, commits the allowed entry with job.submitted, caused by the job', async () => {
    await start({ auditMode: 'batch' });
    const { container } = chain();
    const { job } = await call(START, container);
    const events = await h.log.read({});
    const submitted = events.find((e) => e.type === 'job.submitted');
    const entry = events.find((e) => e.type === AUDIT_CAPABILITY_EVENT);
    expect(entry).toMatchObject({ causation: job?.id, data: { decision: 'allowed', verb: START } });
    expect(entry?.seq).toBe((submitted?.seq ?? 0) + 2); // job.submitted, audit.invoked, audit.capability
    expect(errorOf((await call(START, undefined)).envelope).code).toBe('UNAUTHORIZED');
    expect((await audits()).map((a) => a['decision'])).toEqual(['allowed', 'denied']);
  });
});
