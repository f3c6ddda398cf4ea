/**
 * Payment channels (seed 003 §6.4) as a projection of the event log — the ledger is the
 * events: `micropayments.channel_opened` (budget), `micropayments.channel_paid` (one payment,
 * its nonce), `micropayments.channel_closed` (total spent, refund). Amounts are integer
 * micro-units (D12). The reducer re-checks the ledger's invariants (nonces strictly
 * increase, nothing is spent beyond the budget, a closed channel takes no payment), so a
 * replay of a log that breaks them fails loudly.
 */
import { PlexusError } from '../../core/errors.js';
import type { JsonObject, JsonValue } from '../../core/json.js';
import type { Event } from '../../core/records/event.js';
import type { Projection } from '../../store/projection.js';
import { eventOf, type EventType } from '../../store/event-map.js';

/** The event types of channels. */
export const CHANNEL_EVENTS = {
  opened: 'micropayments.channel_opened',
  paid: 'micropayments.channel_paid',
  closed: 'micropayments.channel_closed',
} as const satisfies Readonly<Record<string, EventType>>;

declare module '../../store/event-map.js' {
  /** The micropayments primitive (channels)'s events (`CHANNEL_EVENTS`). */
  interface EventMap {
    'micropayments.channel_opened': ChannelOpenedData;
    'micropayments.channel_paid': ChannelPaidData;
    'micropayments.channel_closed': ChannelClosedData;
  }
}

/** The projection name. */
export const CHANNELS_PROJECTION_NAME = 'micropayments.channels';

/** The data of `micropayments.channel_opened`. */
export interface ChannelOpenedData {
  readonly channelId: string;
  /** Who opened (and alone may pay from and close) the channel. */
  readonly payer: string;
  readonly payee: string;
  readonly currency: string;
  /** Micro-units. */
  readonly budget: number;
  /** ISO 8601. */
  readonly at: string;
}

/** The data of `micropayments.channel_paid`. */
export interface ChannelPaidData {
  readonly channelId: string;
  readonly nonce: number;
  /** Micro-units. */
  readonly amount: number;
  readonly memo?: string;
  readonly at: string;
}

/** The data of `micropayments.channel_closed`. */
export interface ChannelClosedData {
  readonly channelId: string;
  /** Micro-units. */
  readonly totalSpent: number;
  /** Micro-units. */
  readonly refund: number;
  readonly at: string;
}

/** One channel's state. */
export interface ChannelRecord {
  readonly channelId: string;
  readonly payer: string;
  readonly payee: string;
  readonly currency: string;
  readonly budget: number;
  readonly spent: number;
  /** The nonce of the last payment (0 before any). */
  readonly nonce: number;
  readonly payments: number;
  readonly status: 'open' | 'closed';
  readonly openedAt: string;
  readonly closedAt?: string;
  readonly refund?: number;
}

/** Channels by id. */
export interface ChannelsState {
  readonly channels: Map<string, ChannelRecord>;
}

function dataOf(event: Event): JsonObject {
  const d = event.data;
  if (typeof d !== 'object' || d === null || Array.isArray(d)) {
    throw new PlexusError('INTERNAL', `${event.type} event data must be an object`);
  }
  return d;
}

function channelOf(state: ChannelsState, id: string, event: Event): ChannelRecord {
  const channel = state.channels.get(id);
  if (channel === undefined) throw new PlexusError('INTERNAL', `${event.type} for unknown channel ${id}`);
  if (channel.status !== 'open') throw new PlexusError('INTERNAL', `${event.type} for closed channel ${id}`);
  return channel;
}

/** The channels projection. */
export const channelsProjection: Projection<ChannelsState> = {
  name: CHANNELS_PROJECTION_NAME,
  version: 1,
  filter: { type: [CHANNEL_EVENTS.opened, CHANNEL_EVENTS.paid, CHANNEL_EVENTS.closed] },
  initial: () => ({ channels: new Map() }),
  apply(state, event) {
    const opened = eventOf(event, CHANNEL_EVENTS.opened);
    const paid = eventOf(event, CHANNEL_EVENTS.paid);
    const closed = eventOf(event, CHANNEL_EVENTS.closed);
    if (opened !== undefined) {
      dataOf(event); // a foreign log's non-object data fails here, as before
      const d = opened.data;
      if (state.channels.has(d.channelId)) {
        throw new PlexusError('INTERNAL', `channel ${d.channelId} is opened twice`);
      }
      state.channels.set(d.channelId, {
        channelId: d.channelId,
        payer: d.payer,
        payee: d.payee,
        currency: d.currency,
        budget: d.budget,
        spent: 0,
        nonce: 0,
        payments: 0,
        status: 'open',
        openedAt: d.at,
      });
    } else if (paid !== undefined) {
      dataOf(event); // a foreign log's non-object data fails here, as before
      const d = paid.data;
      const c = channelOf(state, d.channelId, event);
      if (d.nonce <= c.nonce) {
        throw new PlexusError('INTERNAL', `channel ${c.channelId}: nonce ${d.nonce} after ${c.nonce}`);
      }
      if (c.spent + d.amount > c.budget) {
        throw new PlexusError('INTERNAL', `channel ${c.channelId}: a payment beyond the budget`);
      }
      state.channels.set(c.channelId, {
        ...c,
        spent: c.spent + d.amount,
        nonce: d.nonce,
        payments: c.payments + 1,
      });
    } else if (closed !== undefined) {
      dataOf(event); // a foreign log's non-object data fails here, as before
      const d = closed.data;
      const c = channelOf(state, d.channelId, event);
      if (d.totalSpent !== c.spent || d.refund !== c.budget - c.spent) {
        throw new PlexusError('INTERNAL', `channel ${c.channelId}: the settlement does not match the ledger`);
      }
      state.channels.set(c.channelId, { ...c, status: 'closed', closedAt: d.at, refund: d.refund });
    }
    return state;
  },
  toJson(state) {
    return { channels: [...state.channels.values()] as unknown as JsonValue[] };
  },
  fromJson(json) {
    const o = json as unknown as { channels: ChannelRecord[] };
    return { channels: new Map(o.channels.map((c) => [c.channelId, c])) };
  },
};
