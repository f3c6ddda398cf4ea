/**
 * Effects in a runtime: charges debited before the verb's handler (and refunded when the
 * job fails), BUDGET_EXCEEDED failing the job before the handler, the handler context's
 * `read` / `emit` limited to the declared effects, declared emits appended only on
 * success, audit entries after the handler, UCAN budget caps, and the ledger in `verify`.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Envelope } from '../../../src/core/envelope.js';
import { PlexusError, type ErrorData } from '../../../src/core/errors.js';
import type { JsonValue } from '../../../src/core/json.js';
import {
  AUDIT_EFFECT_EVENT,
  LEDGER_EVENTS,
  budgetLedger,
  chargesHandler,
  createEffectScope,
  createRuntime,
  ucanBudget,
  ucanBudgets,
  type BudgetPolicy,
  type EffectCall,
  type HandlerContext,
} from '../../../src/runtime/index.js';
import { encodeCapabilityContainer, proofStore } from '../../../src/security/ucan/chain-container.js';
import { ucanVerifier } from '../../../src/security/ucan/chain-verifier.js';
import { signUcan } from '../../../src/security/ucan/ucan-token.js';
import { memoryEventLog } from '../../../src/store/index.js';
import { node, root } from '../../security/ucan/fixtures.js';
import { agent, request, spec, startRuntime, type Harness } from '../helpers.js';

const PAID = 'demo.paid.run';
const FAILS = 'demo.paid.fails';
const READS = 'demo.reads.run';
const EMITS = 'demo.emits.run';
const FORGE = 'demo.emits.forge';

const POLICY: BudgetPolicy = {
  prices: { tokens: 200_000, compute: 50_000 },
  tenants: { acme: 1_000_000 },
  defaultTenant: 300_000,
  principals: { ci: 400_000 },
};

let calls = 0;
let counter = 0;
/** Requests with the same payload would be duplicates (one job): each gets its own. */
const nonce = (): number => ++counter;
let seen: JsonValue = null;

const handlers = {
  [PAID]: async (_input: JsonValue, ctx: HandlerContext) => {
    calls++;
    seen = await ctx.read('budget');
    return { ok: true };
  },
  [FAILS]: () => {
    calls++;
    throw new PlexusError('INVALID_SEMANTIC', 'the handler refuses this input');
  },
  [READS]: async (input: JsonValue, ctx: HandlerContext) => {
    const what = (input as { resource: string; swallow?: boolean }).resource;
    if ((input as { swallow?: boolean }).swallow === true) {
      await ctx.read(what).catch(() => null);
      return { swallowed: true };
    }
    return { value: await ctx.read(what) };
  },
  [EMITS]: (input: JsonValue, ctx: HandlerContext) => {
    const i = input as { type: string; fail?: boolean };
    ctx.emit(i.type, { hello: 'world' });
    if (i.fail === true) throw new PlexusError('INVALID_SEMANTIC', 'failed after emitting');
    return { emitted: i.type };
  },
  [FORGE]: (_input: JsonValue, ctx: HandlerContext) => {
    ctx.emit('job.completed', { id: 'someone-else', outputs: null });
    return null;
  },
};

const paidAgent = agent('billing', handlers, {
  verbs: [
    spec(PAID, {
      effects: { charges: ['tokens', 'compute', 'unpriced'], reads: ['budget'], audits: ['decision'] },
    }),
    spec(FAILS, { effects: { charges: ['tokens'] } }),
    spec(READS, { effects: { reads: ['budget', 'notes/*'] } }),
    spec(EMITS, { effects: { emits: ['demo.greeted', 'event/demo.waved'] } }),
    spec(FORGE, { effects: { emits: ['job.completed'] } }),
  ],
});

function errorOf(envelope: Envelope): ErrorData {
  expect(envelope.kind, JSON.stringify(envelope.data)).toBe('error');
  return envelope.data as unknown as ErrorData;
}

describe('effects in a runtime', () => {
  let h: Harness;

  afterEach(async () => {
    await h.close();
    calls = 0;
    seen = null;
  });

  const start = async (extra: Parameters<typeof startRuntime>[0] = {}): Promise<void> => {
    h = await startRuntime({
      agents: [paidAgent],
      effects: { budgets: POLICY, readers: { notes: ({ resource }) => ({ note: resource }) } },
      ...extra,
    });
  };

  it('debits the charge before the handler runs; the handler reads its budget after the debit', async () => {
    await start();
    const { envelope, job } = await h.runtime.invoke(
      request(PAID, { n: nonce() }, undefined, { tenantId: 'acme' }),
      { face: 'internal' },
    );
    expect(envelope.kind).toBe('response');
    expect(job?.state).toBe('COMPLETED');
    expect(seen).toEqual({
      budgets: [{ budget: 'tenant:acme', spent: 250_000, limit: 1_000_000, remaining: 750_000 }],
    });
    const debits = await h.log.read({ type: LEDGER_EVENTS.debited });
    expect(debits).toHaveLength(1);
    expect(debits[0]?.causation).toBe(job?.id);
    expect(debits[0]?.data).toMatchObject({
      meters: { tokens: 200_000, compute: 50_000 },
      verb: PAID,
      agent: 'billing',
    });
    const checks = await h.runtime.verify();
    expect(checks.find((c) => c.name === 'runtime.ledger')?.ok).toBe(true);
  });

  it('fails the job BUDGET_EXCEEDED before the handler when the budget cannot pay', async () => {
    await start();
    const untenanted = (): Envelope => request(PAID, { n: nonce() });
    expect((await h.runtime.invoke(untenanted(), { face: 'internal' })).envelope.kind).toBe('response');
    const { envelope, job } = await h.runtime.invoke(untenanted(), { face: 'internal' });
    const error = errorOf(envelope);
    expect(error.code).toBe('BUDGET_EXCEEDED');
    expect(error.details).toEqual({
      budget: 'untenanted',
      requested: 250_000,
      remaining: 50_000,
      limit: 300_000,
    });
    expect(job?.state).toBe('FAILED');
    expect(calls).toBe(1);
    expect(h.runtime.ledger.figures('untenanted').spent).toBe(250_000);
  });

  it("checks a principal's own limit beside its tenant's", async () => {
    await start();
    const ctx = { face: 'internal' as const, principal: { id: 'ci', kind: 'api-key', tenantId: 'acme' } };
    expect((await h.runtime.invoke(request(PAID, { n: nonce() }), ctx)).envelope.kind).toBe('response');
    const error = errorOf((await h.runtime.invoke(request(PAID, { n: nonce() }), ctx)).envelope);
    expect(error.details).toMatchObject({ budget: 'principal:ci', remaining: 150_000, limit: 400_000 });
    expect(h.runtime.ledger.figures('tenant:acme').spent).toBe(250_000);
  });

  it('refunds the charge of a job whose handler fails', async () => {
    await start();
    const { envelope } = await h.runtime.invoke(request(FAILS, {}, undefined, { tenantId: 'acme' }), {
      face: 'internal',
    });
    expect(errorOf(envelope).code).toBe('INVALID_SEMANTIC');
    expect(calls).toBe(1);
    const ledger = await h.log.read({ typePrefix: 'ledger.' });
    expect(ledger.map((e) => e.type)).toEqual([LEDGER_EVENTS.debited, LEDGER_EVENTS.credited]);
    expect(ledger[1]?.data).toMatchObject({ reason: 'refund', amount: 200_000 });
    expect(h.runtime.ledger.figures('tenant:acme').spent).toBe(0);
  });

  it('lets exactly the affordable number of concurrent jobs run', async () => {
    await start();
    const results = await Promise.all(
      Array.from({ length: 12 }, () =>
        h.runtime.invoke(request(PAID, { n: nonce() }, undefined, { tenantId: 'acme' }), {
          face: 'internal',
        }),
      ),
    );
    const completed = results.filter((r) => r.job?.state === 'COMPLETED').length;
    expect(completed).toBe(4); // 1.0 / 0.25
    expect(calls).toBe(4);
    for (const r of results.filter((x) => x.job?.state !== 'COMPLETED')) {
      expect(errorOf(r.envelope).code).toBe('BUDGET_EXCEEDED');
    }
  });

  it('reads declared resources through their readers and refuses undeclared ones', async () => {
    await start();
    const ok = await h.runtime.invoke(request(READS, { resource: 'notes/today' }), { face: 'internal' });
    expect(ok.envelope.data).toEqual({ value: { note: 'notes/today' } });
    const bad = errorOf(
      (await h.runtime.invoke(request(READS, { resource: 'secrets/keys' }), { face: 'internal' })).envelope,
    );
    expect(bad.code).toBe('FORBIDDEN');
    expect(bad.message).toContain(READS);
    expect(bad.message).toContain('"reads: secrets/keys"');
    expect(bad.details).toMatchObject({ verb: READS, effect: 'reads', resource: 'secrets/keys' });
  });

  it('fails the job when the handler swallowed an undeclared read', async () => {
    await start();
    const { envelope, job } = await h.runtime.invoke(
      request(READS, { resource: 'secrets/keys', swallow: true }),
      {
        face: 'internal',
      },
    );
    expect(errorOf(envelope).code).toBe('FORBIDDEN');
    expect(job?.state).toBe('FAILED');
  });

  it('appends declared emits after success only, with the job as causation', async () => {
    await start();
    const a = await h.runtime.invoke(
      request(EMITS, { type: 'demo.greeted' }, undefined, { tenantId: 't1' }),
      { face: 'internal' },
    );
    const b = await h.runtime.invoke(request(EMITS, { type: 'demo.waved' }), { face: 'internal' });
    const failed = await h.runtime.invoke(request(EMITS, { type: 'demo.greeted', fail: true }), {
      face: 'internal',
    });
    expect(a.job?.state).toBe('COMPLETED');
    expect(b.job?.state).toBe('COMPLETED');
    expect(failed.job?.state).toBe('FAILED');
    const events = await h.log.read({ typePrefix: 'demo.' });
    expect(events.map((e) => [e.type, e.causation])).toEqual([
      ['demo.greeted', a.job?.id],
      ['demo.waved', b.job?.id],
    ]);
    expect(events[0]?.tenant).toBe('t1');
  });

  it('fails an undeclared emit and a forged node event type, appending nothing', async () => {
    await start();
    const undeclared = errorOf(
      (await h.runtime.invoke(request(EMITS, { type: 'demo.shouted' }), { face: 'internal' })).envelope,
    );
    expect(undeclared.code).toBe('FORBIDDEN');
    expect(undeclared.details).toMatchObject({ verb: EMITS, effect: 'emits', resource: 'demo.shouted' });
    const forged = errorOf((await h.runtime.invoke(request(FORGE, {}), { face: 'internal' })).envelope);
    expect(forged.code).toBe('FORBIDDEN');
    expect(forged.message).toContain('only the node itself writes');
    expect(await h.log.read({ typePrefix: 'demo.' })).toHaveLength(0);
  });

  it('writes an audit entry after the handler for a verb that declares audits', async () => {
    await start();
    const { job } = await h.runtime.invoke(request(PAID, { n: nonce() }, undefined, { tenantId: 'acme' }), {
      face: 'internal',
    });
    const [entry] = await h.log.read({ type: AUDIT_EFFECT_EVENT });
    expect(entry?.causation).toBe(job?.id);
    expect(entry?.data).toMatchObject({
      outcome: 'completed',
      verb: PAID,
      resources: ['decision'],
      agent: 'billing',
    });
    const all = await h.log.read({ causation: job?.id ?? 'none' });
    const at = (type: string): number => all.findIndex((e) => e.type === type);
    expect(at(LEDGER_EVENTS.debited)).toBeLessThan(at(AUDIT_EFFECT_EVENT));
  });

  it('takes no charge and refuses reads and emits when nothing is declared or no budgets are configured', async () => {
    h = await startRuntime({ agents: [paidAgent] });
    const { envelope } = await h.runtime.invoke(
      request(PAID, { n: nonce() }, undefined, { tenantId: 'acme' }),
      { face: 'internal' },
    );
    expect(envelope.kind).toBe('response');
    expect(await h.log.read({ typePrefix: 'ledger.' })).toHaveLength(0);
    expect(seen).toEqual({ budgets: [{ budget: 'tenant:acme', spent: 0 }] });
  });
});

describe('budget policy', () => {
  it('refuses a runtime whose budgets are not whole micro-units, naming the field', () => {
    const log = memoryEventLog();
    const bad = (budgets: unknown) => () =>
      createRuntime({ log, effects: { budgets: budgets as BudgetPolicy } });
    expect(bad({ prices: { tokens: 0.5 } })).toThrow(
      /budgets\.prices\.tokens must be a whole number of micro-units/,
    );
    expect(bad({ prices: {}, tenants: { acme: -1 } })).toThrow(/budgets\.tenants\.acme/);
    expect(bad({ prices: {}, defaultTenant: '5' })).toThrow(/budgets\.defaultTenant/);
    expect(bad({ tenants: {} })).toThrow(/budgets\.prices must map names/);
  });
});

describe('UCAN budget caps', () => {
  it('caps the charges of calls made with a token by its budget caveat', async () => {
    const log = memoryEventLog();
    const verifier = ucanVerifier({ roots: [root.did], audience: node.did, store: proofStore() });
    const h = await startRuntime(
      { agents: [paidAgent], effects: { budgets: POLICY, extraBudgets: ucanBudgets(verifier) } },
      log,
    );
    try {
      const token = signUcan({
        key: root.key,
        audience: node.did,
        capabilities: { 'agentese:*': { 'effect/charges': [{ budget: { tokens: 450_000 } }] } },
      });
      const capability = encodeCapabilityContainer(token);
      const call = () =>
        h.runtime.invoke(request(PAID, { n: nonce() }, undefined, { tenantId: 'acme', capability }), {
          face: 'internal',
        });
      expect((await call()).job?.state).toBe('COMPLETED');
      expect((await call()).job?.state).toBe('COMPLETED');
      const third = errorOf((await call()).envelope);
      expect(third.code).toBe('BUDGET_EXCEEDED');
      expect(third.details).toEqual({
        budget: ucanBudget(token.cid, 'tokens'),
        requested: 200_000,
        remaining: 50_000,
        limit: 450_000,
      });
      expect(h.runtime.ledger.figures('tenant:acme').spent).toBe(500_000);
    } finally {
      await h.close();
    }
  });
});

describe('chargesHandler on a job run again', () => {
  it('does not charge a re-run job twice', async () => {
    const log = memoryEventLog();
    await log.start();
    const ledger = budgetLedger({ log });
    await ledger.start();
    const handler = chargesHandler({ ledger, policy: POLICY });
    const envelope = request(FAILS, {}, undefined, { tenantId: 'acme' });
    const call = (attempt: number): EffectCall => ({
      effect: 'charges',
      resources: ['tokens'],
      jobId: 'job-7',
      attempt,
      agentId: 'billing',
      verb: FAILS,
      spec: spec(FAILS, { effects: { charges: ['tokens'] } }),
      envelope,
      principal: undefined,
      scope: createEffectScope({
        verb: FAILS,
        agentId: 'billing',
        declared: {},
        envelope,
        principal: undefined,
        signal: () => new AbortController().signal,
      }),
      signal: new AbortController().signal,
    });
    const first = await handler.before?.(call(1));
    const again = await handler.before?.(call(2));
    expect(again).toEqual(first);
    expect(ledger.figures('tenant:acme').spent).toBe(200_000);
    await handler.after?.(call(2), { ok: false, error: new PlexusError('INTERNAL', 'x') }, again);
    expect(ledger.figures('tenant:acme').spent).toBe(0);
    await ledger.stop();
    await log.stop();
  });
});
