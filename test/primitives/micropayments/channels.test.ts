import { afterEach, describe, expect, it } from 'vitest';
import type { JsonObject } from '../../../src/core/json.js';
import { memoryEventLog } from '../../../src/store/index.js';
import { startPayHarness, type PayHarness } from './pay-harness.js';

let h: PayHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

async function harness(): Promise<PayHarness> {
  h = await startPayHarness(memoryEventLog());
  return h;
}

async function open(t: PayHarness, budget = 5.0): Promise<string> {
  const state = await t.ok('micropayments.channel.open', {
    payee: '12D3KooWRx434ACwmJz',
    budget,
    currency: 'USDC',
  });
  return state['channelId'] as string;
}

describe('micropayments channels', () => {
  it('runs the seed §6.4 stream: open, pay twice, close with the refund', async () => {
    const t = await harness();
    const state = await t.ok('micropayments.channel.open', {
      payee: '12D3KooWRx434ACwmJz',
      budget: 5.0,
      currency: 'USDC',
    });
    expect(state).toMatchObject({
      payer: 'did:example:payer',
      payee: '12D3KooWRx434ACwmJz',
      currency: 'USDC',
      budget: 5,
      spent: 0,
      remaining: 5,
      nonce: 0,
      status: 'open',
      openedAt: '2026-03-18T14:00:00.000Z',
    });
    const channelId = state['channelId'] as string;
    expect(channelId).toMatch(/^chan-[0-9a-f]{24}$/);
    const p1 = await t.ok('micropayments.channel.pay', { channelId, amount: 0.003, memo: '42 tokens' });
    const p2 = await t.ok('micropayments.channel.pay', { channelId, amount: 0.003, memo: '42 tokens' });
    expect(p1).toMatchObject({ nonce: 1, remaining: 4.997 });
    expect(p2).toMatchObject({ nonce: 2, remaining: 4.994, spent: 0.006 });
    const closed = await t.ok('micropayments.channel.close', { channelId });
    expect(closed).toEqual({ totalSpent: 0.006, refund: 4.994, channelId, nonce: 2 });
    const ledger = await t.log.read({ typePrefix: 'micropayments.channel_' });
    expect(ledger.map((e) => [e.type, (e.data as { amount?: number }).amount])).toEqual([
      ['micropayments.channel_opened', undefined],
      ['micropayments.channel_paid', 3000],
      ['micropayments.channel_paid', 3000],
      ['micropayments.channel_closed', undefined],
    ]);
    expect(ledger[3]!.data).toMatchObject({ totalSpent: 6000, refund: 4_994_000 });
  });

  it('refuses a payment beyond the remaining budget with the seed units in details', async () => {
    const t = await harness();
    const channelId = await open(t, 1);
    await t.ok('micropayments.channel.pay', { channelId, amount: 0.88 });
    const error = await t.fail('micropayments.channel.pay', { channelId, amount: 0.2 });
    expect(error.code).toBe('BUDGET_EXCEEDED');
    expect(error.details).toEqual({ channelId, remaining: 0.12, requested: 0.2, limit: 1 });
    expect(error.message).toBe("payment $0.20 exceeds the channel's remaining budget $0.12");
    expect(await t.ok('micropayments.channel.pay', { channelId, amount: 0.12 })).toMatchObject({
      nonce: 2,
      remaining: 0,
    });
  });

  it('never overspends under concurrent payments, and never reuses a nonce', async () => {
    const t = await harness();
    const channelId = await open(t, 1);
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        t.call('micropayments.channel.pay', { channelId, amount: 0.03, memo: `chunk ${i}` }),
      ),
    );
    const paid = answers.filter((a) => a.kind === 'response').map((a) => a.data as JsonObject);
    const refused = answers.filter((a) => a.kind === 'error').map((a) => (a.data as { code: string }).code);
    expect(paid).toHaveLength(33);
    expect(refused).toEqual(Array.from({ length: 17 }, () => 'BUDGET_EXCEEDED'));
    expect(paid.map((p) => p['nonce']).sort((a, b) => (a as number) - (b as number))).toEqual(
      Array.from({ length: 33 }, (_, i) => i + 1),
    );
    expect(await t.ok('micropayments.channel.close', { channelId })).toMatchObject({
      totalSpent: 0.99,
      refund: 0.01,
    });
  });

  it('takes client nonces that strictly increase, gaps allowed', async () => {
    const t = await harness();
    const channelId = await open(t);
    expect(await t.ok('micropayments.channel.pay', { channelId, amount: 0.5, nonce: 5 })).toMatchObject({
      nonce: 5,
    });
    for (const nonce of [5, 4]) {
      const error = await t.fail('micropayments.channel.pay', { channelId, amount: 0.5, nonce });
      expect(error.code).toBe('CONFLICT');
      expect(error.message).toMatch(/strictly increase/);
      expect(error.details).toMatchObject({ nonce: 5 });
    }
    expect(await t.ok('micropayments.channel.pay', { channelId, amount: 0.5 })).toMatchObject({ nonce: 6 });
    // With client nonces, two payments of the same amount are two requests even for the
    // runtime's default (payload-hash) idempotency: no explicit key needed.
    const noKey = { idempotencyKey: undefined as never };
    const a = await t.ok('micropayments.channel.pay', { channelId, amount: 0.25, nonce: 7 }, noKey);
    const b = await t.ok('micropayments.channel.pay', { channelId, amount: 0.25, nonce: 8 }, noKey);
    expect([a['nonce'], b['nonce'], b['spent']]).toEqual([7, 8, 1.5]);
  });

  it('refuses payments to closed, unknown or someone else’s channels', async () => {
    const t = await harness();
    const channelId = await open(t);
    const other = { principal: { id: 'did:example:payee', kind: 'local' } };
    const stolen = await t.fail('micropayments.channel.pay', { channelId, amount: 1 }, other);
    expect(stolen.code).toBe('FORBIDDEN');
    expect((await t.fail('micropayments.channel.close', { channelId }, other)).code).toBe('FORBIDDEN');
    await t.ok('micropayments.channel.close', { channelId });
    const late = await t.fail('micropayments.channel.pay', { channelId, amount: 1 });
    expect(late.code).toBe('CONFLICT');
    expect(late.details).toMatchObject({ totalSpent: 0, refund: 5 });
    expect((await t.fail('micropayments.channel.close', { channelId })).code).toBe('CONFLICT');
    const unknown = await t.fail('micropayments.channel.pay', { channelId: 'chan-nope', amount: 1 });
    expect(unknown.code).toBe('NOT_FOUND');
    expect(unknown.message).toMatch(/chan-nope/);
  });

  it('refuses bad params naming the field', async () => {
    const t = await harness();
    const channelId = await open(t);
    const cases: [string, JsonObject, string][] = [
      ['micropayments.channel.open', { payee: 'p', budget: 0, currency: 'USDC' }, 'budget'],
      ['micropayments.channel.open', { payee: 'p', budget: 1.0000001, currency: 'USDC' }, 'budget'],
      ['micropayments.channel.open', { payee: 'p', budget: 1, currency: 'US DC' }, '/currency'],
      ['micropayments.channel.open', { payee: '', budget: 1, currency: 'USDC' }, '/payee'],
      ['micropayments.channel.open', { budget: 1, currency: 'USDC' }, ''],
      ['micropayments.channel.pay', { channelId, amount: -1 }, '/amount'],
      ['micropayments.channel.pay', { channelId, amount: 0 }, 'amount'],
      ['micropayments.channel.pay', { channelId, amount: 1, nonce: 0 }, '/nonce'],
      ['micropayments.channel.pay', { channelId, amount: '1' }, '/amount'],
      ['micropayments.channel.close', {}, ''],
    ];
    for (const [method, params, field] of cases) {
      const error = await t.fail(method, params);
      expect(error.code, `${method} ${JSON.stringify(params)}`).toBe('INVALID_PARAMS');
      const problems = (error.details?.['problems'] ?? []) as { pointer: string }[];
      const named = [...problems.map((p) => p.pointer), error.details?.['field']];
      expect(named, `${method} ${JSON.stringify(params)}`).toContain(field);
    }
  });
});
