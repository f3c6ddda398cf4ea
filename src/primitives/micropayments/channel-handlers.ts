/**
 * `micropayments.channel.open`, `.pay` and `.close` (seed 003 §6.2, §6.4): a budget opened
 * by a payer, paid from in strictly increasing nonces, closed with the total spent and the
 * refund of the rest. Every check-then-append runs under the channel's lock, so concurrent
 * payments on one channel never spend beyond the budget and never share a nonce.
 */
import { randomBytes } from 'node:crypto';
import { PlexusError } from '../../core/errors.js';
import type { JsonObject, JsonValue } from '../../core/json.js';
import type { HandlerContext } from '../../runtime/index.js';
import { formatMicros, fromMicros, toMicros } from '../money.js';
import {
  CHANNEL_EVENTS,
  type ChannelClosedData,
  type ChannelOpenedData,
  type ChannelPaidData,
  type ChannelRecord,
} from './channels-projection.js';
import { actorOf, eventMeta, type PayDeps } from './pay-deps.js';

/** The PayChannelState answer of a channel (amounts in units). */
export function payChannelState(c: ChannelRecord): JsonObject {
  const out: JsonObject = {
    channelId: c.channelId,
    payer: c.payer,
    payee: c.payee,
    currency: c.currency,
    budget: fromMicros(c.budget),
    spent: fromMicros(c.spent),
    remaining: fromMicros(c.budget - c.spent),
    nonce: c.nonce,
    status: c.status,
    openedAt: c.openedAt,
  };
  if (c.closedAt !== undefined) out['closedAt'] = c.closedAt;
  return out;
}

/** The channel `id`, opened by the caller of `ctx` and still open (unless `closedOk`). */
function ownChannel(deps: PayDeps, id: string, ctx: HandlerContext, closedOk = false): ChannelRecord {
  const channel = deps.channels.state().channels.get(id);
  if (channel === undefined) {
    throw new PlexusError('NOT_FOUND', `no payment channel ${JSON.stringify(id)} on this node`, {
      details: { channelId: id, pointer: '/channelId' },
    });
  }
  const actor = actorOf(ctx);
  if (channel.payer !== actor) {
    throw new PlexusError(
      'FORBIDDEN',
      `payment channel ${id} belongs to its opener; ${actor} may not use it`,
      {
        details: { channelId: id },
      },
    );
  }
  if (!closedOk && channel.status !== 'open') {
    throw new PlexusError('CONFLICT', `payment channel ${id} is closed`, {
      details: {
        channelId: id,
        totalSpent: fromMicros(channel.spent),
        refund: fromMicros(channel.refund ?? 0),
      },
    });
  }
  return channel;
}

/** `micropayments.channel.open(payee, budget, currency)` → PayChannelState. */
export function openHandler(deps: PayDeps) {
  return async (raw: JsonValue, ctx: HandlerContext): Promise<JsonValue> => {
    const input = raw as { payee: string; budget: number; currency: string };
    const budget = toMicros(input.budget, 'budget', { allowZero: false });
    const data: ChannelOpenedData = {
      channelId: `chan-${randomBytes(12).toString('hex')}`,
      payer: actorOf(ctx),
      payee: input.payee,
      currency: input.currency,
      budget,
      at: new Date(deps.now()).toISOString(),
    };
    const event = await deps.log.append({
      type: CHANNEL_EVENTS.opened,
      data,
      ...eventMeta(ctx),
    });
    await deps.channels.waitFor(event.seq);
    const channel = deps.channels.state().channels.get(data.channelId);
    if (channel === undefined)
      throw new PlexusError('INTERNAL', 'the opened channel is not in the projection');
    return payChannelState(channel);
  };
}

/** `micropayments.channel.pay(channelId, amount, memo)` → `{nonce, remaining}`. */
export function payHandler(deps: PayDeps) {
  return async (raw: JsonValue, ctx: HandlerContext): Promise<JsonValue> => {
    const input = raw as { channelId: string; amount: number; memo?: string; nonce?: number };
    const amount = toMicros(input.amount, 'amount', { allowZero: false });
    return deps.lock.run(`channel:${input.channelId}`, async () => {
      const c = ownChannel(deps, input.channelId, ctx);
      const nonce = input.nonce ?? c.nonce + 1;
      if (nonce <= c.nonce) {
        throw new PlexusError(
          'CONFLICT',
          `nonce ${nonce} is not above the channel's last nonce ${c.nonce}; nonces must strictly increase`,
          { details: { channelId: c.channelId, nonce: c.nonce, pointer: '/nonce' } },
        );
      }
      const remaining = c.budget - c.spent;
      if (amount > remaining) {
        throw new PlexusError(
          'BUDGET_EXCEEDED',
          `payment ${formatMicros(amount)} exceeds the channel's remaining budget ${formatMicros(remaining)}`,
          {
            details: {
              channelId: c.channelId,
              remaining: fromMicros(remaining),
              requested: fromMicros(amount),
              limit: fromMicros(c.budget),
            },
          },
        );
      }
      const data: ChannelPaidData = {
        channelId: c.channelId,
        nonce,
        amount,
        ...(input.memo === undefined ? {} : { memo: input.memo }),
        at: new Date(deps.now()).toISOString(),
      };
      const event = await deps.log.append({
        type: CHANNEL_EVENTS.paid,
        data,
        ...eventMeta(ctx),
      });
      await deps.channels.waitFor(event.seq);
      return {
        nonce,
        remaining: fromMicros(remaining - amount),
        spent: fromMicros(c.spent + amount),
        channelId: c.channelId,
      };
    });
  };
}

/** `micropayments.channel.close(channelId)` → `{totalSpent, refund}`. */
export function closeHandler(deps: PayDeps) {
  return async (raw: JsonValue, ctx: HandlerContext): Promise<JsonValue> => {
    const { channelId } = raw as { channelId: string };
    return deps.lock.run(`channel:${channelId}`, async () => {
      const c = ownChannel(deps, channelId, ctx);
      const data: ChannelClosedData = {
        channelId,
        totalSpent: c.spent,
        refund: c.budget - c.spent,
        at: new Date(deps.now()).toISOString(),
      };
      const event = await deps.log.append({
        type: CHANNEL_EVENTS.closed,
        data,
        ...eventMeta(ctx),
      });
      await deps.channels.waitFor(event.seq);
      return {
        totalSpent: fromMicros(data.totalSpent),
        refund: fromMicros(data.refund),
        channelId,
        nonce: c.nonce,
      };
    });
  };
}
