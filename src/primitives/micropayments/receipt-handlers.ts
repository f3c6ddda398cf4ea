/**
 * `micropayments.challenge` and `micropayments.verify` (seed 003 §6.2–6.3): a challenge binds
 * a price, a payee and a random nonce, and expires; a credential is accepted once, when its
 * EIP-712 receipt matches the stored challenge exactly and is signed by its payer. The check
 * and the recording of the spent receipt run under the challenge's lock, so two copies of one
 * credential presented at once are accepted at most once.
 */
import { randomBytes } from 'node:crypto';
import type { Address, Hex } from 'viem';
import { PlexusError } from '../../core/errors.js';
import type { JsonObject, JsonValue } from '../../core/json.js';
import type { HandlerContext } from '../../runtime/index.js';
import { fromMicros, toMicros } from '../money.js';
import { actorOf, eventMeta, type PayDeps } from './pay-deps.js';
import {
  PAYMENT_CURRENCIES,
  RECEIPT_PRIMARY_TYPE,
  RECEIPT_TYPES,
  checkAddress,
  receiptDomain,
  receiptIdOf,
  receiptSigner,
  type PayCredential,
  type PaymentCurrency,
  type ReceiptMessage,
} from './receipt.js';
import {
  RECEIPT_EVENTS,
  type ChallengeIssuedData,
  type ChallengeRecord,
  type ReceiptRedeemedData,
} from './receipts-projection.js';

/** Why a credential was refused (`code` of a `verify` answer with `accepted: false`). */
export const PAYMENT_REFUSALS = [
  'already_spent',
  'unknown_challenge',
  'resource_mismatch',
  'expired',
  'chain_mismatch',
  'payee_mismatch',
  'nonce_mismatch',
  'expiry_mismatch',
  'currency_not_accepted',
  'amount_mismatch',
  'bad_signature',
] as const;

/** One of {@link PAYMENT_REFUSALS}. */
export type PaymentRefusal = (typeof PAYMENT_REFUSALS)[number];

interface ChallengeInput {
  readonly pricePoints: number;
  readonly priceUsdc: number;
  readonly payeeAddress: string;
  readonly resource?: string;
  readonly ttlMs?: number;
}

/** The PayChallenge answer for a stored challenge. */
export function payChallenge(c: ChallengeIssuedData): JsonObject {
  const currencies = PAYMENT_CURRENCIES.filter((k) => c.prices[k] !== undefined);
  const out: JsonObject = {
    challengeId: c.challengeId,
    nonce: c.nonce,
    pricePoints: fromMicros(c.prices.points ?? 0),
    priceUsdc: fromMicros(c.prices.USDC ?? 0),
    payeeAddress: c.payee,
    currencies: [...currencies],
    acceptedChains: [`eip155:${c.chainId}`],
    chainId: c.chainId,
    issuedAt: new Date(c.issuedAt).toISOString(),
    expiresAt: c.expiresAt,
    eip712: {
      domain: receiptDomain(c.chainId),
      primaryType: RECEIPT_PRIMARY_TYPE,
      types: RECEIPT_TYPES as unknown as JsonObject,
    },
  };
  if (c.resource !== undefined) out['resource'] = c.resource;
  return out;
}

/** `micropayments.challenge`: stores a new challenge and answers the PayChallenge. */
export function challengeHandler(deps: PayDeps) {
  return async (raw: JsonValue, ctx: HandlerContext): Promise<JsonValue> => {
    const input = raw as unknown as ChallengeInput;
    const payee = checkAddress(input.payeeAddress, 'payeeAddress');
    const points = toMicros(input.pricePoints, 'pricePoints');
    const usdc = toMicros(input.priceUsdc, 'priceUsdc');
    if (points === 0 && usdc === 0) {
      throw new PlexusError('INVALID_PARAMS', 'pricePoints or priceUsdc must be greater than 0', {
        details: { field: 'priceUsdc' },
      });
    }
    const ttl = input.ttlMs ?? deps.settings.challengeTtlMs;
    if (ttl > deps.settings.maxChallengeTtlMs) {
      throw new PlexusError('INVALID_PARAMS', `ttlMs must be at most ${deps.settings.maxChallengeTtlMs}`, {
        details: { field: 'ttlMs' },
      });
    }
    const issuedAt = deps.now();
    const data: ChallengeIssuedData = {
      challengeId: `pay-${randomBytes(12).toString('hex')}`,
      nonce: `0x${randomBytes(32).toString('hex')}`,
      payee,
      prices: { ...(usdc > 0 ? { USDC: usdc } : {}), ...(points > 0 ? { points } : {}) },
      chainId: deps.settings.chainId,
      issuedAt,
      expiresAt: issuedAt + ttl,
      ...(input.resource === undefined ? {} : { resource: input.resource }),
      issuer: actorOf(ctx),
    };
    const event = await deps.log.append({
      type: RECEIPT_EVENTS.challengeIssued,
      data,
      ...eventMeta(ctx),
    });
    await deps.receipts.waitFor(event.seq);
    return payChallenge(data);
  };
}

/** The receipt a credential claims to be, with its fields checked. */
function claimedReceipt(c: PayCredential): ReceiptMessage {
  return {
    challengeId: c.challengeId,
    payer: checkAddress(c.payer, 'credential.payer'),
    payee: checkAddress(c.payee, 'credential.payee'),
    amount: BigInt(toMicros(c.amount, 'credential.amount')),
    currency: c.currency,
    nonce: c.nonce.toLowerCase() as Hex,
    expiresAt: BigInt(c.expiresAt),
  };
}

/** Why the credential does not match the challenge, or `undefined` when every term matches. */
function mismatch(
  c: PayCredential,
  r: ReceiptMessage,
  ch: ChallengeRecord,
  now: number,
  resource: string | undefined,
): { code: PaymentRefusal; reason: string } | undefined {
  if (ch.paidBy !== undefined) {
    return { code: 'already_spent', reason: `challenge ${ch.challengeId} is already paid` };
  }
  if (resource !== undefined && ch.resource !== resource) {
    return {
      code: 'resource_mismatch',
      reason: `challenge ${ch.challengeId} pays for ${ch.resource ?? 'no particular resource'}, not for ${resource}`,
    };
  }
  if (now > ch.expiresAt) {
    return {
      code: 'expired',
      reason: `challenge ${ch.challengeId} expired at ${new Date(ch.expiresAt).toISOString()}; ask for a new one`,
    };
  }
  if (c.chainId !== ch.chainId) {
    return {
      code: 'chain_mismatch',
      reason: `the receipt is for chain ${c.chainId}, the challenge for ${ch.chainId}`,
    };
  }
  if (r.payee !== ch.payee) {
    return {
      code: 'payee_mismatch',
      reason: `the receipt pays ${r.payee}, the challenge asks payment to ${ch.payee}`,
    };
  }
  if (r.nonce !== ch.nonce.toLowerCase()) {
    return { code: 'nonce_mismatch', reason: 'the receipt nonce is not the challenge nonce' };
  }
  if (Number(r.expiresAt) !== ch.expiresAt) {
    return { code: 'expiry_mismatch', reason: 'the receipt expiresAt is not the challenge expiresAt' };
  }
  const price = ch.prices[c.currency as PaymentCurrency];
  if (price === undefined) {
    return { code: 'currency_not_accepted', reason: `the challenge does not accept ${c.currency}` };
  }
  if (Number(r.amount) !== price) {
    return {
      code: 'amount_mismatch',
      reason: `the receipt pays ${fromMicros(Number(r.amount))} ${c.currency}, the challenge asks ${fromMicros(price)} ${c.currency}`,
    };
  }
  return undefined;
}

/**
 * `micropayments.verify`: accepts a credential once, recording the spent receipt. With
 * `resource`, the credential's challenge must have been issued for that resource.
 */
export function verifyHandler(deps: PayDeps) {
  return async (raw: JsonValue, ctx: HandlerContext): Promise<JsonValue> => {
    const { credential: c, resource } = raw as unknown as { credential: PayCredential; resource?: string };
    const r = claimedReceipt(c);
    const receiptId = receiptIdOf(c.chainId, r);
    const answer = (extra: JsonObject): JsonObject => ({
      receiptId,
      amount: c.amount,
      currency: c.currency,
      payer: r.payer,
      payee: r.payee,
      challengeId: c.challengeId,
      ...extra,
    });
    const refuse = (code: PaymentRefusal, reason: string): JsonObject =>
      answer({ accepted: false, code, reason });
    return deps.lock.run(`challenge:${c.challengeId}`, async () => {
      const state = deps.receipts.state();
      if (state.receipts.has(receiptId)) {
        return refuse('already_spent', `receipt ${receiptId} was already spent`);
      }
      const ch = state.challenges.get(c.challengeId);
      if (ch === undefined) {
        return refuse(
          'unknown_challenge',
          `no open challenge ${c.challengeId} on this node; ask for a new one`,
        );
      }
      const wrong = mismatch(c, r, ch, deps.now(), resource);
      if (wrong !== undefined) return refuse(wrong.code, wrong.reason);
      const signer: Address | undefined = await receiptSigner(c.chainId, r, c.signature as Hex);
      if (signer !== r.payer) {
        return refuse(
          'bad_signature',
          signer === undefined
            ? 'the signature is not a valid EIP-712 signature'
            : `the receipt is signed by ${signer}, not by the payer ${r.payer}`,
        );
      }
      const data: ReceiptRedeemedData = {
        receiptId,
        challengeId: ch.challengeId,
        payer: r.payer,
        payee: r.payee,
        amount: Number(r.amount),
        currency: c.currency,
        signature: c.signature,
        ...(ch.resource === undefined ? {} : { resource: ch.resource }),
        redeemedAt: deps.now(),
      };
      const event = await deps.log.append({
        type: RECEIPT_EVENTS.receiptRedeemed,
        data,
        ...eventMeta(ctx),
      });
      await deps.receipts.waitFor(event.seq);
      return answer({ accepted: true, ...(ch.resource === undefined ? {} : { resource: ch.resource }) });
    });
  };
}
