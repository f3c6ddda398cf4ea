/**
 * The Hyperspace micropayments primitive (seed 003 §6): HTTP 402 challenges, EIP-712
 * receipts (viem, local keys) spent once, and streaming payment channels — all event-sourced.
 */
export {
  MICROPAYMENTS_PROJECTIONS,
  micropaymentsPrimitive,
  type MicropaymentsInit,
} from './micropayments-primitive.js';
export {
  MAX_PAYMENT_HEADER_LENGTH,
  PAYMENT_CURRENCIES,
  RECEIPT_DOMAIN_NAME,
  RECEIPT_DOMAIN_VERSION,
  RECEIPT_PRIMARY_TYPE,
  RECEIPT_TYPES,
  checkAddress,
  credentialOf,
  decodePaymentHeader,
  encodePaymentHeader,
  receiptDomain,
  receiptFor,
  receiptIdOf,
  receiptSigner,
  receiptTypedData,
  type ChallengeTerms,
  type PayCredential,
  type PaymentCurrency,
  type ReceiptMessage,
} from './receipt.js';
export { PAYMENT_REFUSALS, payChallenge, type PaymentRefusal } from './receipt-handlers.js';
export { payChannelState } from './channel-handlers.js';
export {
  CHALLENGE_RETENTION_MS,
  RECEIPTS_PROJECTION_NAME,
  RECEIPT_EVENTS,
  receiptsProjection,
  type ChallengeIssuedData,
  type ChallengeRecord,
  type ReceiptRedeemedData,
  type ReceiptsState,
} from './receipts-projection.js';
export {
  CHANNELS_PROJECTION_NAME,
  CHANNEL_EVENTS,
  channelsProjection,
  type ChannelClosedData,
  type ChannelOpenedData,
  type ChannelPaidData,
  type ChannelRecord,
  type ChannelsState,
} from './channels-projection.js';
