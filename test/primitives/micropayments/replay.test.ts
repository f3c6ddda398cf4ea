import { afterEach, describe, expect, it } from 'vitest';
import type { JsonObject } from '../../../src/core/json.js';
import {
  MICROPAYMENTS_PROJECTIONS,
  channelsProjection,
  receiptsProjection,
  CHALLENGE_RETENTION_MS,
} from '../../../src/primitives/micropayments/index.js';
import {
  memoryEventLog,
  projectionText,
  rebuildProjection,
  type Projection,
} from '../../../src/store/index.js';
import { LOG_BACKENDS, type LogUnderTest } from '../../runtime/helpers.js';
import { PAYEE, startPayHarness, wallet, type PayHarness } from './pay-harness.js';

let h: PayHarness | undefined;
let under: LogUnderTest | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
  await under?.cleanup();
  under = undefined;
});

async function same<S>(t: PayHarness, projection: Projection<S>, index: number): Promise<void> {
  const rebuilt = await rebuildProjection(t.log, projection);
  const live = t.pay.views[index]!.state() as S;
  expect(projectionText(projection, rebuilt.state)).toBe(projectionText(projection, live));
  const json = projection.toJson!(rebuilt.state);
  expect(projectionText(projection, projection.fromJson!(json))).toBe(
    projectionText(projection, rebuilt.state),
  );
}

describe('micropayments replay', () => {
  it('exports its projections', () => {
    expect(MICROPAYMENTS_PROJECTIONS.map((p) => p.name)).toEqual([
      'micropayments.receipts',
      'micropayments.channels',
    ]);
  });

  for (const backend of LOG_BACKENDS) {
    it(`rebuilds challenges, spent receipts and channels from the ${backend.name} log`, async () => {
      under = await backend.make();
      h = await startPayHarness(under.log);
      const c = await h.ok('micropayments.challenge', {
        pricePoints: 0,
        priceUsdc: 0.25,
        payeeAddress: PAYEE,
      });
      const credential = (await wallet().pay(c)) as unknown as JsonObject;
      expect(await h.ok('micropayments.verify', { credential })).toMatchObject({ accepted: true });
      await h.ok('micropayments.challenge', { pricePoints: 3, priceUsdc: 0, payeeAddress: PAYEE });
      const { channelId } = (await h.ok('micropayments.channel.open', {
        payee: 'p',
        budget: 2,
        currency: 'points',
      })) as { channelId: string };
      await h.ok('micropayments.channel.pay', { channelId, amount: 0.5, memo: 'a' });
      await h.ok('micropayments.channel.pay', { channelId, amount: 0.25 });
      await same(h, receiptsProjection, 0);
      await same(h, channelsProjection, 1);

      // After a restart over the same storage, the spent receipt stays spent and the channel continues.
      await h.close(true);
      await under.log.stop();
      h = await startPayHarness(under.reopen());
      expect(await h.ok('micropayments.verify', { credential })).toMatchObject({
        accepted: false,
        code: 'already_spent',
      });
      expect(await h.ok('micropayments.channel.pay', { channelId, amount: 0.25 })).toMatchObject({
        nonce: 3,
        remaining: 1,
      });
      await same(h, receiptsProjection, 0);
      await same(h, channelsProjection, 1);
    });
  }

  it('forgets long-expired challenges but never the spent receipts', async () => {
    h = await startPayHarness(memoryEventLog());
    const c = await h.ok('micropayments.challenge', { pricePoints: 1, priceUsdc: 0, payeeAddress: PAYEE });
    const credential = (await wallet().pay(c, 'points')) as unknown as JsonObject;
    await h.ok('micropayments.verify', { credential });
    const unpaid = await h.ok('micropayments.challenge', {
      pricePoints: 1,
      priceUsdc: 0,
      payeeAddress: PAYEE,
    });
    h.clock.t += CHALLENGE_RETENTION_MS + 400_000;
    await h.ok('micropayments.challenge', { pricePoints: 1, priceUsdc: 0, payeeAddress: PAYEE });
    const state = receiptsProjection.fromJson!(receiptsProjection.toJson!(h.pay.views[0]!.state() as never));
    expect(state.challenges.has(unpaid['challengeId'] as string)).toBe(false);
    expect(state.challenges.size).toBe(1);
    expect(state.receipts.size).toBe(1);
    expect(await h.ok('micropayments.verify', { credential })).toMatchObject({ code: 'already_spent' });
    const late = (await wallet().pay(unpaid, 'points')) as unknown as JsonObject;
    expect(await h.ok('micropayments.verify', { credential: late })).toMatchObject({
      code: 'unknown_challenge',
    });
  });

  it('fails a replay of a ledger that overspends or repeats a nonce', async () => {
    const log = memoryEventLog();
    await log.start();
    const at = '2026-03-18T14:00:00.000Z';
    await log.append({
      type: 'micropayments.channel_opened',
      data: { channelId: 'c1', payer: 'a', payee: 'b', currency: 'USDC', budget: 100, at },
    });
    await log.append({
      type: 'micropayments.channel_paid',
      data: { channelId: 'c1', nonce: 1, amount: 60, at },
    });
    const good = await rebuildProjection(log, channelsProjection);
    expect(good.state.channels.get('c1')).toMatchObject({ spent: 60, nonce: 1 });
    await log.append({
      type: 'micropayments.channel_paid',
      data: { channelId: 'c1', nonce: 2, amount: 60, at },
    });
    await expect(rebuildProjection(log, channelsProjection)).rejects.toThrow(/beyond the budget/);
    const log2 = memoryEventLog();
    await log2.start();
    await log2.append({
      type: 'micropayments.channel_opened',
      data: { channelId: 'c1', payer: 'a', payee: 'b', currency: 'USDC', budget: 100, at },
    });
    await log2.append({
      type: 'micropayments.channel_paid',
      data: { channelId: 'c1', nonce: 1, amount: 1, at },
    });
    await log2.append({
      type: 'micropayments.channel_paid',
      data: { channelId: 'c1', nonce: 1, amount: 1, at },
    });
    await expect(rebuildProjection(log2, channelsProjection)).rejects.toThrow(/nonce 1 after 1/);
    await log.stop();
    await log2.stop();
  });
});
