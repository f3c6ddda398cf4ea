/**
 * Challenges and the spent-receipt set of the micropayments primitive (seed 003 §6), as a
 * projection of the event log: `micropayments.challenge_issued` opens a challenge,
 * `micropayments.receipt_redeemed` spends a receipt (and pays its challenge). Amounts are
 * integer micro-units (D12); times are Unix ms written into the events by the handler.
 *
 * Unpaid or paid challenges that expired more than {@link CHALLENGE_RETENTION_MS} before a
 * newer challenge was issued are dropped (the receipts stay: the spent set is never pruned).
 */
import { PlexusError } from '../../core/errors.js';
import type { JsonObject, JsonValue } from '../../core/json.js';
import type { Event } from '../../core/records/event.js';
import type { Projection } from '../../store/projection.js';
import { eventOf, type EventType } from '../../store/event-map.js';

/** The event types of the 402 flow. */
export const RECEIPT_EVENTS = {
  challengeIssued: 'micropayments.challenge_issued',
  receiptRedeemed: 'micropayments.receipt_redeemed',
} as const satisfies Readonly<Record<string, EventType>>;

declare module '../../store/event-map.js' {
  /** The micropayments primitive (receipts)'s events (`RECEIPT_EVENTS`). */
  interface EventMap {
    'micropayments.challenge_issued': ChallengeIssuedData;
    'micropayments.receipt_redeemed': ReceiptRedeemedData;
  }
}

/** The projection name. */
export const RECEIPTS_PROJECTION_NAME = 'micropayments.receipts';

/** How long an expired challenge is remembered (for a precise "expired" answer), ms. */
export const CHALLENGE_RETENTION_MS = 24 * 60 * 60 * 1000;

/** The data of a `micropayments.challenge_issued` event. */
export interface ChallengeIssuedData {
  readonly challengeId: string;
  /** 0x + 64 hex. */
  readonly nonce: string;
  /** Checksummed payee address. */
  readonly payee: string;
  /** Price in micro-units per accepted currency (absent: not accepted). */
  readonly prices: { readonly USDC?: number; readonly points?: number };
  readonly chainId: number;
  /** Unix ms. */
  readonly issuedAt: number;
  /** Unix ms. */
  readonly expiresAt: number;
  /** What the challenge pays for (`POST /inference`), when bound to a resource. */
  readonly resource?: string;
  /** Who asked for it. */
  readonly issuer: string;
}

/** The data of a `micropayments.receipt_redeemed` event. */
export interface ReceiptRedeemedData {
  /** The EIP-712 hash of the receipt. */
  readonly receiptId: string;
  readonly challengeId: string;
  readonly payer: string;
  readonly payee: string;
  /** Micro-units. */
  readonly amount: number;
  readonly currency: string;
  readonly signature: string;
  readonly resource?: string;
  /** Unix ms. */
  readonly redeemedAt: number;
}

/** A challenge and, once paid, the receipt that paid it. */
export interface ChallengeRecord extends ChallengeIssuedData {
  readonly paidBy?: string;
}

/** Challenges by id and spent receipts by id (both in insertion order). */
export interface ReceiptsState {
  readonly challenges: Map<string, ChallengeRecord>;
  readonly receipts: Map<string, ReceiptRedeemedData>;
}

function dataOf(event: Event): JsonObject {
  const d = event.data;
  if (typeof d !== 'object' || d === null || Array.isArray(d)) {
    throw new PlexusError('INTERNAL', `${event.type} event data must be an object`);
  }
  return d;
}

function prune(state: ReceiptsState, at: number): void {
  for (const [id, c] of state.challenges) {
    if (c.expiresAt + CHALLENGE_RETENTION_MS >= at) break;
    state.challenges.delete(id);
  }
}

/** The challenges and spent receipts projection. */
export const receiptsProjection: Projection<ReceiptsState> = {
  name: RECEIPTS_PROJECTION_NAME,
  version: 1,
  filter: { type: [RECEIPT_EVENTS.challengeIssued, RECEIPT_EVENTS.receiptRedeemed] },
  initial: () => ({ challenges: new Map(), receipts: new Map() }),
  apply(state, event) {
    const issued = eventOf(event, RECEIPT_EVENTS.challengeIssued);
    const redeemed = eventOf(event, RECEIPT_EVENTS.receiptRedeemed);
    if (issued !== undefined) {
      dataOf(event); // a foreign log's non-object data fails here, as before
      const data = issued.data;
      prune(state, data.issuedAt);
      state.challenges.set(data.challengeId, data);
    } else if (redeemed !== undefined) {
      dataOf(event); // a foreign log's non-object data fails here, as before
      const data = redeemed.data;
      if (state.receipts.has(data.receiptId)) {
        throw new PlexusError('INTERNAL', `receipt ${data.receiptId} is redeemed twice in the log`);
      }
      state.receipts.set(data.receiptId, data);
      const challenge = state.challenges.get(data.challengeId);
      if (challenge !== undefined) {
        state.challenges.set(data.challengeId, { ...challenge, paidBy: data.receiptId });
      }
    }
    return state;
  },
  toJson(state) {
    return {
      challenges: [...state.challenges.values()] as unknown as JsonValue[],
      receipts: [...state.receipts.values()] as unknown as JsonValue[],
    };
  },
  fromJson(json) {
    const o = json as unknown as { challenges: ChallengeRecord[]; receipts: ReceiptRedeemedData[] };
    return {
      challenges: new Map(o.challenges.map((c) => [c.challengeId, c])),
      receipts: new Map(o.receipts.map((r) => [r.receiptId, r])),
    };
  },
};
