/**
 * Payment receipts as EIP-712 typed signatures (seed 003 §6.1 PayCredential), made and
 * checked with `viem` and local keys — no chain, no network. A receipt says: `payer` pays
 * `amount` micro-units of `currency` to `payee` for challenge `challengeId` (with its `nonce`
 * and `expiresAt`). Its id is the EIP-712 hash of the typed data, so one challenge paid by one
 * payer has exactly one receipt id whatever the signature's encoding (ECDSA malleability
 * cannot mint a second receipt).
 *
 * Also the `X-Payment-Required` / `X-Payment` header codec: base64 of the JSON text.
 */
import { getAddress, hashTypedData, isAddress, recoverTypedDataAddress, type Address, type Hex } from 'viem';
import { PlexusError } from '../../core/errors.js';
import type { JsonObject, JsonValue } from '../../core/json.js';
import { fromMicros, toMicros } from '../money.js';

/** The EIP-712 domain name of Plexus receipts. */
export const RECEIPT_DOMAIN_NAME = 'Plexus Micropayments';
/** The EIP-712 domain version. */
export const RECEIPT_DOMAIN_VERSION = '1';
/** The EIP-712 primary type. */
export const RECEIPT_PRIMARY_TYPE = 'PaymentReceipt';

/** The EIP-712 types of a receipt (amount in micro-units; expiresAt in Unix ms). */
export const RECEIPT_TYPES = {
  PaymentReceipt: [
    { name: 'challengeId', type: 'string' },
    { name: 'payer', type: 'address' },
    { name: 'payee', type: 'address' },
    { name: 'amount', type: 'uint256' },
    { name: 'currency', type: 'string' },
    { name: 'nonce', type: 'bytes32' },
    { name: 'expiresAt', type: 'uint256' },
  ],
} as const;

/** The currencies a challenge can ask for (seed §6.1: points, USDC). */
export const PAYMENT_CURRENCIES = ['USDC', 'points'] as const;

/** One of {@link PAYMENT_CURRENCIES}. */
export type PaymentCurrency = (typeof PAYMENT_CURRENCIES)[number];

/** What a receipt signs. */
export interface ReceiptMessage {
  readonly challengeId: string;
  readonly payer: Address;
  readonly payee: Address;
  /** Micro-units. */
  readonly amount: bigint;
  readonly currency: string;
  readonly nonce: Hex;
  /** Unix ms. */
  readonly expiresAt: bigint;
}

/** The EIP-712 domain for `chainId` (a domain separator only: nothing is sent to a chain). */
export function receiptDomain(chainId: number): { name: string; version: string; chainId: number } {
  return { name: RECEIPT_DOMAIN_NAME, version: RECEIPT_DOMAIN_VERSION, chainId };
}

/** The full typed data of a receipt, ready for viem's `signTypedData`. */
export function receiptTypedData(chainId: number, message: ReceiptMessage) {
  return {
    domain: receiptDomain(chainId),
    types: RECEIPT_TYPES,
    primaryType: RECEIPT_PRIMARY_TYPE,
    message,
  } as const;
}

/** The receipt id: the EIP-712 hash of the typed data (0x + 64 hex). */
export function receiptIdOf(chainId: number, message: ReceiptMessage): Hex {
  return hashTypedData(receiptTypedData(chainId, message));
}

/** The address that signed the receipt, or `undefined` when the signature is not a valid one. */
export async function receiptSigner(
  chainId: number,
  message: ReceiptMessage,
  signature: Hex,
): Promise<Address | undefined> {
  try {
    return await recoverTypedDataAddress({ ...receiptTypedData(chainId, message), signature });
  } catch {
    return undefined;
  }
}

/**
 * The checksummed form of an EVM address.
 * @throws PlexusError `INVALID_PARAMS` naming `field` when `value` is not a 20-byte hex address.
 */
export function checkAddress(value: string, field: string): Address {
  if (!isAddress(value, { strict: false })) {
    throw new PlexusError(
      'INVALID_PARAMS',
      `${field} must be an EVM address (0x followed by 40 hex digits)`,
      {
        details: {
          field,
          problems: [{ pointer: `/${field.replaceAll('.', '/')}`, message: 'must be an EVM address' }],
        },
      },
    );
  }
  return getAddress(value);
}

/** A payment credential (seed §6.1 PayCredential), as the `X-Payment` header carries it. */
export interface PayCredential {
  readonly challengeId: string;
  readonly payer: string;
  readonly payee: string;
  /** In units of `currency` (`0.01`). */
  readonly amount: number;
  readonly currency: string;
  readonly nonce: string;
  /** Unix ms, as in the challenge. */
  readonly expiresAt: number;
  readonly chainId: number;
  /** The EIP-712 signature, 0x + 130 hex. */
  readonly signature: string;
}

/** The fields of a challenge a payer needs to build a receipt. */
export interface ChallengeTerms {
  readonly challengeId: string;
  readonly payeeAddress: string;
  readonly nonce: string;
  readonly expiresAt: number;
  readonly chainId: number;
  readonly pricePoints: number;
  readonly priceUsdc: number;
}

/**
 * The receipt a payer signs to pay `challenge` in `currency` (client side).
 * @throws PlexusError `INVALID_PARAMS` when the challenge does not ask for `currency` or has a bad field.
 */
export function receiptFor(
  challenge: ChallengeTerms,
  payer: string,
  currency: PaymentCurrency,
): ReceiptMessage {
  const price = currency === 'USDC' ? challenge.priceUsdc : challenge.pricePoints;
  const amount = toMicros(price, currency === 'USDC' ? 'priceUsdc' : 'pricePoints');
  if (amount === 0) {
    throw new PlexusError('INVALID_PARAMS', `the challenge does not accept ${currency}`, {
      details: { field: 'currency' },
    });
  }
  return {
    challengeId: challenge.challengeId,
    payer: checkAddress(payer, 'payer'),
    payee: checkAddress(challenge.payeeAddress, 'payeeAddress'),
    amount: BigInt(amount),
    currency,
    nonce: challenge.nonce as Hex,
    expiresAt: BigInt(challenge.expiresAt),
  };
}

/** The credential for a signed receipt (client side). */
export function credentialOf(chainId: number, receipt: ReceiptMessage, signature: Hex): PayCredential {
  return {
    challengeId: receipt.challengeId,
    payer: receipt.payer,
    payee: receipt.payee,
    amount: fromMicros(Number(receipt.amount)),
    currency: receipt.currency,
    nonce: receipt.nonce,
    expiresAt: Number(receipt.expiresAt),
    chainId,
    signature,
  };
}

/** The largest header value decoded, in characters. */
export const MAX_PAYMENT_HEADER_LENGTH = 16_384;

const BASE64 = /^[A-Za-z0-9+/_-]+={0,2}$/;

/** Encodes a value for `X-Payment-Required` / `X-Payment`: base64 of its JSON text (UTF-8). */
export function encodePaymentHeader(value: JsonValue): string {
  return Buffer.from(JSON.stringify(value), 'utf8').toString('base64');
}

/**
 * Decodes an `X-Payment` / `X-Payment-Required` header value (base64 or base64url of JSON).
 * @throws PlexusError `INVALID_PARAMS` naming `header` when it is too long, not base64, or
 *   not a JSON object.
 */
export function decodePaymentHeader(text: string, header: string): JsonObject {
  const bad = (why: string): PlexusError =>
    new PlexusError('INVALID_PARAMS', `the ${header} header ${why}`, { details: { header } });
  if (text.length > MAX_PAYMENT_HEADER_LENGTH)
    throw bad(`is longer than ${MAX_PAYMENT_HEADER_LENGTH} characters`);
  const trimmed = text.trim();
  if (!BASE64.test(trimmed)) throw bad('must be base64 of a JSON object');
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(trimmed, 'base64').toString('utf8'));
  } catch {
    throw bad('is base64 but not of JSON text');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw bad('must hold a JSON object');
  }
  return value as JsonObject;
}
