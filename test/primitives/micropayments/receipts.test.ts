import { hashTypedData, type Hex } from 'viem';
import { afterEach, describe, expect, it } from 'vitest';
import type { JsonObject } from '../../../src/core/json.js';
import {
  PAYMENT_REFUSALS,
  receiptTypedData,
  type PayCredential,
} from '../../../src/primitives/micropayments/index.js';
import { memoryEventLog } from '../../../src/store/index.js';
import { PAYEE, startPayHarness, wallet, type PayHarness } from './pay-harness.js';

let h: PayHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

async function harness(): Promise<PayHarness> {
  h = await startPayHarness(memoryEventLog());
  return h;
}

async function challenge(t: PayHarness, extra: JsonObject = {}): Promise<JsonObject> {
  return t.ok('micropayments.challenge', {
    pricePoints: 10,
    priceUsdc: 0.01,
    payeeAddress: PAYEE.toLowerCase(),
    ...extra,
  });
}

async function verify(t: PayHarness, credential: PayCredential): Promise<JsonObject> {
  return t.ok('micropayments.verify', { credential: credential as unknown as JsonObject });
}

describe('micropayments challenge and verify', () => {
  it('issues a challenge bound to price, payee, nonce and expiry', async () => {
    const t = await harness();
    const c = await challenge(t, { resource: 'POST /inference' });
    expect(c).toMatchObject({
      pricePoints: 10,
      priceUsdc: 0.01,
      payeeAddress: PAYEE, // checksummed
      currencies: ['USDC', 'points'],
      acceptedChains: ['eip155:8453'],
      chainId: 8453,
      issuedAt: '2026-03-18T14:00:00.000Z',
      expiresAt: t.clock.t + 300_000,
      resource: 'POST /inference',
      eip712: {
        domain: { name: 'Plexus Micropayments', version: '1', chainId: 8453 },
        primaryType: 'PaymentReceipt',
      },
    });
    expect(c['challengeId']).toMatch(/^pay-[0-9a-f]{24}$/);
    expect(c['nonce']).toMatch(/^0x[0-9a-f]{64}$/);
    const other = await challenge(t);
    expect(other['nonce']).not.toBe(c['nonce']);
    const usdcOnly = await challenge(t, { pricePoints: 0 });
    expect(usdcOnly['currencies']).toEqual(['USDC']);
  });

  it('accepts a credential signed with viem once, recording the spent receipt', async () => {
    const t = await harness();
    const c = await challenge(t);
    const payer = wallet();
    const credential = await payer.pay(c);
    const out = await verify(t, credential);
    const receipt = {
      challengeId: c['challengeId'] as string,
      payer: payer.account.address,
      payee: PAYEE,
      amount: 10_000n,
      currency: 'USDC',
      nonce: c['nonce'] as Hex,
      expiresAt: BigInt(c['expiresAt'] as number),
    };
    expect(out).toEqual({
      accepted: true,
      receiptId: hashTypedData(receiptTypedData(8453, receipt)),
      amount: 0.01,
      currency: 'USDC',
      payer: payer.account.address,
      payee: PAYEE,
      challengeId: c['challengeId'],
    });
    const events = await t.log.read({ type: 'micropayments.receipt_redeemed' });
    expect(events.map((e) => e.data)).toEqual([
      expect.objectContaining({ receiptId: out['receiptId'], amount: 10_000, currency: 'USDC' }),
    ]);
    // The same credential again is a replay.
    const again = await verify(t, credential);
    expect(again).toMatchObject({ accepted: false, code: 'already_spent', receiptId: out['receiptId'] });
    expect(again['reason']).toMatch(/already spent/);
    // So is a second payer's receipt for the paid challenge.
    const late = await verify(t, await wallet().pay(c));
    expect(late).toMatchObject({ accepted: false, code: 'already_spent' });
    expect(await t.log.read({ type: 'micropayments.receipt_redeemed' })).toHaveLength(1);
  });

  it('pays in points at the points price', async () => {
    const t = await harness();
    const c = await challenge(t);
    const out = await verify(t, await wallet().pay(c, 'points'));
    expect(out).toMatchObject({ accepted: true, amount: 10, currency: 'points' });
    const usdcOnly = await challenge(t, { pricePoints: 0 });
    const payer = wallet();
    const refused = await verify(
      t,
      await payer.sign(8453, { ...receiptOf(usdcOnly, payer), currency: 'points' }),
    );
    expect(refused).toMatchObject({ accepted: false, code: 'currency_not_accepted' });
  });

  it('accepts the same credential at most once when presented concurrently', async () => {
    const t = await harness();
    const c = await challenge(t);
    const credential = await wallet().pay(c);
    const outs = await Promise.all(Array.from({ length: 12 }, () => verify(t, credential)));
    expect(outs.filter((o) => o['accepted'] === true)).toHaveLength(1);
    expect(outs.filter((o) => o['code'] === 'already_spent')).toHaveLength(11);
  });

  it('refuses a wrong amount, payee, nonce, chain, expiry or signature with a clear reason, spending nothing', async () => {
    const t = await harness();
    const c = await challenge(t);
    const payer = wallet();
    const intruder = wallet();
    const cases: [string, Promise<PayCredential>][] = [
      ['amount_mismatch', payer.pay(c, 'USDC', (r) => ({ ...r, amount: 1n }))],
      ['payee_mismatch', payer.pay(c, 'USDC', (r) => ({ ...r, payee: intruder.account.address }))],
      ['nonce_mismatch', payer.pay(c, 'USDC', (r) => ({ ...r, nonce: `0x${'ab'.repeat(32)}` }))],
      ['expiry_mismatch', payer.pay(c, 'USDC', (r) => ({ ...r, expiresAt: r.expiresAt + 60_000n }))],
      ['chain_mismatch', payer.sign(1, receiptOf(c, payer))],
      [
        'bad_signature', // signed by someone else, claiming the payer
        intruder.sign(8453, receiptOf(c, payer)),
      ],
      [
        'bad_signature', // a signature altered in transit
        payer.pay(c).then((cr) => ({ ...cr, signature: flip(cr.signature) })),
      ],
      ['unknown_challenge', payer.pay({ ...c, challengeId: 'pay-000000000000000000000000' })],
    ];
    for (const [code, made] of cases) {
      const out = await verify(t, await made);
      expect(out['accepted'], code).toBe(false);
      expect(out['code'], JSON.stringify(out)).toBe(code);
      expect(PAYMENT_REFUSALS).toContain(out['code']);
      expect(typeof out['reason']).toBe('string');
    }
    const wrongAmount = await verify(t, await payer.pay(c, 'USDC', (r) => ({ ...r, amount: 1n })));
    expect(wrongAmount['reason']).toBe('the receipt pays 0.000001 USDC, the challenge asks 0.01 USDC');
    // Nothing was spent: the right credential still goes through.
    expect(await verify(t, await payer.pay(c))).toMatchObject({ accepted: true });
  });

  it('refuses a credential for an expired challenge', async () => {
    const t = await harness();
    const c = await challenge(t, { ttlMs: 60_000 });
    const credential = await wallet().pay(c);
    t.clock.t += 60_001;
    const out = await verify(t, credential);
    expect(out).toMatchObject({ accepted: false, code: 'expired' });
    expect(out['reason']).toMatch(/expired at 2026-03-18T14:01:00.000Z/);
  });

  it('refuses malformed params naming the field', async () => {
    const t = await harness();
    const c = await challenge(t);
    const good = (await wallet().pay(c)) as unknown as JsonObject;
    const cases: [string, JsonObject, string][] = [
      ['micropayments.challenge', { pricePoints: 1, priceUsdc: 1, payeeAddress: '0x12' }, '/payeeAddress'],
      ['micropayments.challenge', { pricePoints: 1, payeeAddress: PAYEE }, ''],
      ['micropayments.challenge', { pricePoints: -1, priceUsdc: 1, payeeAddress: PAYEE }, '/pricePoints'],
      ['micropayments.verify', { credential: { ...good, signature: '0x1234' } }, '/credential/signature'],
      ['micropayments.verify', { credential: { ...good, currency: 'EUR' } }, '/credential/currency'],
      ['micropayments.verify', {}, ''],
    ];
    for (const [method, params, pointer] of cases) {
      const error = await t.fail(method, params);
      expect(error.code).toBe('INVALID_PARAMS');
      const problems = (error.details?.['problems'] ?? []) as { pointer: string }[];
      expect(
        problems.map((p) => p.pointer),
        JSON.stringify(params),
      ).toContain(pointer);
    }
    const zero = await t.fail('micropayments.challenge', {
      pricePoints: 0,
      priceUsdc: 0,
      payeeAddress: PAYEE,
    });
    expect(zero.message).toMatch(/greater than 0/);
    const fine = await t.fail('micropayments.challenge', {
      pricePoints: 0,
      priceUsdc: 0.0000001,
      payeeAddress: PAYEE,
    });
    expect(fine.details).toMatchObject({ field: 'priceUsdc' });
    const ttl = await t.fail('micropayments.challenge', {
      pricePoints: 1,
      priceUsdc: 0,
      payeeAddress: PAYEE,
      ttlMs: 7_200_000,
    });
    expect(ttl.details).toMatchObject({ field: 'ttlMs' });
    const dust = await t.fail('micropayments.verify', { credential: { ...good, amount: 0.0000001 } });
    expect(dust.details).toMatchObject({ field: 'credential.amount' });
  });

  it('has the seed methods mapped to verbs', async () => {
    const t = await harness();
    expect(t.pay.methods).toEqual({
      'micropayments.challenge': 'micropayments.challenge',
      'micropayments.verify': 'micropayments.verify',
      'micropayments.channel.open': 'micropayments.channel.open',
      'micropayments.channel.pay': 'micropayments.channel.pay',
      'micropayments.channel.close': 'micropayments.channel.close',
    });
  });
});

function receiptOf(c: JsonObject, payer: ReturnType<typeof wallet>) {
  return {
    challengeId: c['challengeId'] as string,
    payer: payer.account.address,
    payee: PAYEE,
    amount: BigInt(Math.round((c['priceUsdc'] as number) * 1_000_000)),
    currency: 'USDC',
    nonce: c['nonce'] as Hex,
    expiresAt: BigInt(c['expiresAt'] as number),
  };
}

/** The signature with one bit of `s` flipped. */
function flip(signature: string): string {
  const i = 80;
  const nibble = parseInt(signature[i]!, 16) ^ 1;
  return `${signature.slice(0, i)}${nibble.toString(16)}${signature.slice(i + 1)}`;
}
